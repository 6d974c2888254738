import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { ConnectorInfo } from "@contract/model"
import type { Snapshot } from "@contract/methods"
import { Config } from "@core/config/Config"
import { Connectors } from "@core/connector/Connectors"
import { EventBus } from "@core/events/EventBus"
import { coreTestLayer } from "../../../support/layers"
import { makeTempDir } from "../../../support/temp"
import { call, contractTestLayer, failure, success } from "../../ipc/contract"

// The connections themselves, without OpenCode: adding, keeping, removing, refusing, and the
// states a server that is not there (or not OpenCode, or refuses the password) leaves them in.
// Connectors.opencode.test.ts drives a real OpenCode server.

const tuning = { backoff: { initialMs: 50, maxMs: 200, factor: 2, jitter: 0 } }

const layer = (options: { dataDir?: string; config?: Config.GatehouseConfig; env?: NodeJS.ProcessEnv } = {}) => {
  const dataDir = options.dataDir ?? makeTempDir()
  return Connectors.layer({ env: options.env ?? {}, tuning }).pipe(
    Layer.provideMerge(
      coreTestLayer({
        dataDir,
        database: join(dataDir, "gatehouse.db"),
        ...(options.config ? { config: options.config } : {}),
      }),
    ),
  )
}

/** A loopback HTTP server answering every request with `status` and `body`. */
const httpServer = (status: number, body: string, contentType = "text/html") =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<Server>((resolve) => {
          const server = createServer((_, res) => {
            res.writeHead(status, { "content-type": contentType })
            res.end(body)
          })
          server.listen(0, "127.0.0.1", () => resolve(server))
        }),
    ),
    (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve()))),
  )
const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`

/** A loopback port nothing listens on. */
const closedPort = Effect.promise(
  () =>
    new Promise<number>((resolve) => {
      const server = createServer()
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        server.close(() => resolve(port))
      })
    }),
)

/** Waits (on events) until the named connection is in a state `accept` takes. */
const stateOf = (name: string, accept: (info: ConnectorInfo) => boolean) =>
  Effect.gen(function* () {
    const connectors = yield* Connectors.Service
    const bus = yield* EventBus.Service
    const subscription = yield* bus.subscribe(() => undefined)
    for (;;) {
      const info = connectors.listUnsafe().find((entry) => entry.name === name)
      if (info && accept(info)) return info
      yield* subscription.takeBatch
    }
  }).pipe(Effect.scoped, Effect.timeout("20 seconds"))

describe("Connectors", () => {
  it.live("adds a server, keeps it across restarts, and shows it unreachable while nothing answers", () =>
    Effect.gen(function* () {
      const dataDir = makeTempDir()
      const port = yield* closedPort
      const added = yield* Effect.gen(function* () {
        const connectors = yield* Connectors.Service
        const info = yield* connectors.add({ url: `http://127.0.0.1:${port}/`, username: "me", password: "pw" })
        assert.strictEqual(info.name, `127.0.0.1-${port}`)
        assert.strictEqual(info.url, `http://127.0.0.1:${port}`)
        assert.strictEqual(info.origin, "ui")
        assert.strictEqual(info.username, "me")
        assert.isTrue(info.hasPassword)
        assert.notProperty(info, "password")
        const down = yield* stateOf(info.name, (entry) => entry.state === "unreachable")
        assert.match(down.detail ?? "", /refused/)
        assert.isAbove(down.retryAt ?? 0, down.since - 1)
        return info
      }).pipe(Effect.provide(layer({ dataDir })))

      const kept = yield* Effect.gen(function* () {
        const connectors = yield* Connectors.Service
        return connectors.listUnsafe()
      }).pipe(Effect.provide(layer({ dataDir })))
      assert.deepStrictEqual(
        kept.map((entry) => [entry.name, entry.url, entry.origin, entry.hasPassword]),
        [[added.name, added.url, "ui", true]],
      )
    }),
  )

  it.live("refuses a bad address, name or user name and a name that is taken", () =>
    Effect.gen(function* () {
      const connectors = yield* Connectors.Service
      const port = yield* closedPort
      const url = `http://127.0.0.1:${port}`
      const badUrl = yield* Effect.flip(connectors.add({ url: "127.0.0.1:4096" }))
      assert.strictEqual(badUrl._tag, "Connectors.InvalidError")
      const badName = yield* Effect.flip(connectors.add({ url, name: "my laptop" }))
      assert.deepInclude(badName, { _tag: "Connectors.InvalidError", field: "name" })
      const noPassword = yield* Effect.flip(connectors.add({ url, username: "me" }))
      assert.deepInclude(noPassword, { _tag: "Connectors.InvalidError", field: "password" })
      // Basic auth joins user and password with a colon: one in the user name would split it wrongly.
      const colon = yield* Effect.flip(connectors.add({ url, username: "me:you", password: "secret" }))
      assert.deepInclude(colon, { _tag: "Connectors.InvalidError", field: "username" })
      yield* connectors.add({ url, name: "laptop" })
      const taken = yield* Effect.flip(connectors.add({ url: "http://127.0.0.1:1", name: "laptop" }))
      assert.deepInclude(taken, { _tag: "Connectors.ConflictError", name: "laptop" })
    }).pipe(Effect.provide(layer())),
  )

  it.live("removes an added server and announces it; a configured one is read-only", () =>
    Effect.gen(function* () {
      const connectors = yield* Connectors.Service
      const bus = yield* EventBus.Service
      const subscription = yield* bus.subscribe(() => undefined)
      const port = yield* closedPort
      yield* connectors.add({ url: `http://127.0.0.1:${port}`, name: "added" })
      const readOnly = yield* Effect.flip(connectors.remove("configured"))
      assert.strictEqual(readOnly._tag, "Connectors.ReadOnlyError")
      yield* connectors.remove("added")
      const missing = yield* Effect.flip(connectors.remove("added"))
      assert.strictEqual(missing._tag, "Connectors.NotFoundError")
      assert.deepStrictEqual(
        connectors.listUnsafe().map((entry) => [entry.name, entry.origin]),
        [["configured", "config"]],
      )
      const events = (yield* subscription.takeBatch).map((envelope) => envelope.event._tag)
      assert.include(events, "connector.removed")
    }).pipe(
      Effect.scoped,
      Effect.provide(
        layer({ config: { connectors: { opencode: [{ url: "http://127.0.0.1:1", name: "configured" }] } } }),
      ),
    ),
  )

  it.live("shows a server that refuses the password as unauthorized, and one that is not OpenCode as unreachable", () =>
    Effect.gen(function* () {
      const refusing = yield* httpServer(401, "")
      const other = yield* httpServer(200, "<html>hello</html>")
      yield* Effect.gen(function* () {
        const refused = yield* stateOf("refusing", (entry) => entry.state === "unauthorized")
        assert.match(refused.detail ?? "", /401/)
        const wrong = yield* stateOf("other", (entry) => entry.state === "unreachable")
        assert.match(wrong.detail ?? "", /OpenCode/)
      }).pipe(
        Effect.provide(
          layer({
            config: {
              connectors: {
                opencode: [
                  { url: urlOf(refusing), name: "refusing", password_env: "OC_PW" },
                  { url: urlOf(other), name: "other" },
                ],
              },
            },
            env: { OC_PW: "secret" },
          }),
        ),
      )
    }).pipe(Effect.scoped),
  )

  it.live("refuses to start on a bad connector in config.jsonc, naming the key", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [Config.GatehouseConfig, string]> = [
        [{ connectors: { opencode: [{ url: "nope" }] } }, "connectors.opencode[0].url"],
        [{ connectors: { opencode: [{ url: "http://127.0.0.1:1", name: "a b" }] } }, "connectors.opencode[0].name"],
        [
          {
            connectors: {
              opencode: [
                { url: "http://127.0.0.1:1", name: "x" },
                { url: "http://127.0.0.1:2", name: "x" },
              ],
            },
          },
          "connectors.opencode[1].name",
        ],
        [
          { connectors: { opencode: [{ url: "http://127.0.0.1:1", password_env: "MISSING" }] } },
          "connectors.opencode[0].password_env",
        ],
      ]
      for (const [config, at] of cases) {
        const error = yield* Effect.flip(
          Effect.gen(function* () {
            return yield* Connectors.Service
          }).pipe(Effect.provide(layer({ config }))),
        )
        assert.instanceOf(error, Config.InvalidError)
        assert.strictEqual((error as Config.InvalidError).at, at)
      }
    }),
  )

  it.live("answers the contract: list, add (typed errors) and remove, and puts connections in the snapshot", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const added = success<ConnectorInfo>(
        yield* call("connectors.add", { url: `http://127.0.0.1:${port}`, name: "box" }),
      )
      assert.strictEqual(added.name, "box")
      const listed = success<ReadonlyArray<ConnectorInfo>>(yield* call("connectors.list"))
      assert.deepStrictEqual(
        listed.map((entry) => entry.name),
        ["box"],
      )
      const snapshot = success<Snapshot>(yield* call("app.snapshot"))
      assert.deepStrictEqual(
        snapshot.connectors.map((entry) => entry.name),
        ["box"],
      )
      assert.deepInclude(failure(yield* call("connectors.add", { url: "ftp://x" })), {
        _tag: "Connectors.InvalidError",
        field: "url",
      })
      assert.deepInclude(failure(yield* call("connectors.add", { url: `http://127.0.0.1:${port}`, name: "box" })), {
        _tag: "Connectors.ConflictError",
      })
      success(yield* call("connectors.remove", { name: "box" }))
      assert.deepInclude(failure(yield* call("connectors.remove", { name: "box" })), {
        _tag: "Connectors.NotFoundError",
      })
    }).pipe(Effect.provide(contractTestLayer())),
  )
})
