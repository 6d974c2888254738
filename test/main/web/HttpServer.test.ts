import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Tokens } from "@core/auth/Tokens"
import { Config } from "@core/config/Config"
import { DataDir } from "@core/config/DataDir"
import { startHeadless, type Headless } from "@main/web/Headless"
import { HttpServer } from "@main/web/HttpServer"
import { makeTempDir } from "../../support/temp"
import { makeRendererDir, send, upgrade, type RawResponse } from "./http"

// The admission matrix of RELIABILITY.md §3.2 against the real host on a free loopback port.

let host: Headless
let port: number

beforeAll(async () => {
  const root = makeTempDir()
  host = await startHeadless({ dataDir: root, port: 0, env: {}, rendererDir: makeRendererDir(root) })
  port = host.port
})
afterAll(() => host.close())

const bearer = (token: string) => `gatehouse, bearer.${token}`

const assertSecurityHeaders = (response: RawResponse) => {
  const csp = response.headers["content-security-policy"] ?? ""
  assert.include(csp, "default-src 'self'")
  assert.include(csp, "frame-ancestors 'none'")
  assert.notInclude(csp, "unsafe-inline")
  assert.notInclude(csp, "unsafe-eval")
  assert.strictEqual(response.headers["referrer-policy"], "no-referrer")
  assert.strictEqual(response.headers["x-content-type-options"], "nosniff")
  assert.strictEqual(response.headers["x-frame-options"], "DENY")
  assert.isUndefined(response.headers["access-control-allow-origin"])
}

describe("HttpServer", () => {
  it("listens on 127.0.0.1 only", () => {
    assert.match(host.url, /^http:\/\/127\.0\.0\.1:\d+$/)
    assert.isAbove(port, 0)
  })

  it("answers requests whose Host is 127.0.0.1, localhost or [::1] with the right port", async () => {
    for (const value of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      const response = await send(port, { headers: { host: value } })
      assert.strictEqual(response.status, 200, value)
    }
  })

  it("refuses every other Host with 403, a missing one included", async () => {
    const hosts = [
      "evil.example",
      `evil.example:${port}`,
      "localhost.evil.example",
      `localhost.evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `0.0.0.0:${port}`,
      `127.0.0.1:${port + 1}`,
      "127.0.0.1",
      "localhost",
      undefined,
    ]
    for (const value of hosts) {
      const response = await send(port, { headers: { host: value } })
      assert.strictEqual(response.status, 403, String(value))
      assertSecurityHeaders(response)
    }
  })

  it("refuses a foreign, null or other-port Origin with 403 and accepts its own or none", async () => {
    for (const origin of ["http://evil.example", "null", `http://localhost:${port + 1}`, `https://127.0.0.1:${port}`]) {
      for (const method of ["GET", "POST", "OPTIONS", "DELETE"]) {
        const response = await send(port, { method, headers: { origin } })
        assert.strictEqual(response.status, 403, `${method} ${origin}`)
      }
    }
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, undefined]) {
      assert.strictEqual((await send(port, { headers: { origin } })).status, 200, String(origin))
    }
  })

  it("refuses a WebSocket upgrade from a foreign or null Origin with 403 even with the right token", async () => {
    for (const origin of ["http://evil.example", "null", `http://localhost:${port + 1}`]) {
      const response = await upgrade(port, {
        headers: { origin, "sec-websocket-protocol": bearer(host.supervisorToken) },
      })
      assert.strictEqual(response.status, 403, origin)
      assertSecurityHeaders(response)
    }
  })

  it("refuses a WebSocket upgrade with a foreign Host with 403", async () => {
    const response = await upgrade(port, {
      headers: { host: "evil.example", "sec-websocket-protocol": bearer(host.supervisorToken) },
    })
    assert.strictEqual(response.status, 403)
  })

  it("refuses the UI socket without a token, with a wrong, truncated or differently-cased one, and with the agent token", async () => {
    const wrong = [
      undefined,
      "gatehouse",
      bearer("0".repeat(64)),
      bearer(host.supervisorToken.slice(0, 63)),
      bearer(host.supervisorToken.toUpperCase()),
      bearer(host.agentToken),
    ]
    for (const protocols of wrong) {
      const response = await upgrade(port, { headers: { "sec-websocket-protocol": protocols } })
      assert.strictEqual(response.status, 401, String(protocols))
      assert.strictEqual(response.headers["www-authenticate"], "Bearer")
      assertSecurityHeaders(response)
    }
  })

  it("never takes the token from the query string", async () => {
    const response = await upgrade(port, { path: `/ws?token=${host.supervisorToken}` })
    assert.strictEqual(response.status, 401)
  })

  it("accepts the UI socket with the supervisor token from its own origin and echoes only `gatehouse`", async () => {
    for (const origin of [`http://127.0.0.1:${port}`, undefined]) {
      const response = await upgrade(port, {
        headers: { origin, "sec-websocket-protocol": bearer(host.supervisorToken) },
      })
      assert.strictEqual(response.status, 101)
      assert.strictEqual(response.protocol, "gatehouse")
    }
    const viaHeader = await upgrade(port, { headers: { authorization: `Bearer ${host.supervisorToken}` } })
    assert.strictEqual(viaHeader.status, 101)
  })

  it("answers a plain GET on the socket path with 426 once authorized, 401 before", async () => {
    assert.strictEqual((await send(port, { path: "/ws" })).status, 401)
    const authorized = await send(port, { path: "/ws", headers: { authorization: `Bearer ${host.supervisorToken}` } })
    assert.strictEqual(authorized.status, 426)
  })

  it("sends the security headers and a CSP naming its own WebSocket origins on every response", async () => {
    for (const path of ["/", "/assets/index-abc123.js", "/missing", "/ws"]) {
      const response = await send(port, { path })
      assertSecurityHeaders(response)
      assert.include(
        response.headers["content-security-policy"],
        `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
      )
    }
  })
})

describe("HttpServer routes", () => {
  const dataDir = makeTempDir()
  const serverOn = (port: number) =>
    HttpServer.layer({ port }).pipe(
      Layer.provideMerge(Tokens.layer),
      Layer.provide(Config.layerValue({})),
      Layer.provide(DataDir.layer(dataDir)),
    )
  const serverLayer = serverOn(0)

  it.live("admits a route's own door only: an agent route refuses the supervisor token", () =>
    Effect.gen(function* () {
      const server = yield* HttpServer.Service
      const tokens = yield* Tokens.Service
      yield* server.mount({ prefix: "/mcp", auth: "agent", request: (_req, res) => res.end("mcp") })
      const call = (authorization?: string, path = "/mcp") =>
        Effect.promise(() => send(server.port, { method: "POST", path, headers: { authorization } }))
      assert.strictEqual((yield* call(`Bearer ${tokens.agent}`)).body, "mcp")
      assert.strictEqual((yield* call(`Bearer ${tokens.agent}`, "/mcp/x?y=1")).body, "mcp")
      assert.strictEqual((yield* call(`Bearer ${tokens.supervisor}`)).status, 401)
      assert.strictEqual((yield* call()).status, 401)
      assert.strictEqual((yield* call(`Bearer ${tokens.agent}`, "/mcpx")).status, 404)
    }).pipe(Effect.provide(serverLayer)),
  )

  it.live("answers 500 when a handler throws, and keeps serving", () =>
    Effect.gen(function* () {
      const server = yield* HttpServer.Service
      yield* server.mount({
        prefix: "/broken",
        auth: "public",
        request: () => {
          throw new Error("handler bug")
        },
      })
      yield* server.mount({ prefix: "/fine", auth: "public", request: (_req, res) => res.end("fine") })
      const stderr = process.stderr.write
      process.stderr.write = () => true
      const broken = yield* Effect.promise(() => send(server.port, { path: "/broken" })).pipe(
        Effect.ensuring(Effect.sync(() => (process.stderr.write = stderr))),
      )
      assert.strictEqual(broken.status, 500)
      assert.strictEqual((yield* Effect.promise(() => send(server.port, { path: "/fine" }))).body, "fine")
    }).pipe(Effect.provide(serverLayer)),
  )

  it.live("unmounts a route when its scope closes", () =>
    Effect.gen(function* () {
      const server = yield* HttpServer.Service
      yield* Effect.scoped(server.mount({ prefix: "/temp", auth: "public", request: (_req, res) => res.end("here") }))
      const response = yield* Effect.promise(() => send(server.port, { path: "/temp" }))
      assert.strictEqual(response.status, 404)
    }).pipe(Effect.provide(serverLayer)),
  )

  it.live("reports a port that is already taken with the port and the reason", () =>
    Effect.gen(function* () {
      const server = yield* HttpServer.Service
      const error = yield* Effect.flip(Effect.scoped(Layer.build(serverOn(server.port))))
      assert.instanceOf(error, HttpServer.ListenError)
      assert.strictEqual(error.message, `Cannot listen on 127.0.0.1:${server.port}: the port is already in use`)
    }).pipe(Effect.provide(serverLayer)),
  )
})

describe("HttpServer.matchesPrefix", () => {
  it("matches on a path-segment boundary", () => {
    assert.isTrue(HttpServer.matchesPrefix("/mcp", "/mcp"))
    assert.isTrue(HttpServer.matchesPrefix("/mcp", "/mcp/"))
    assert.isTrue(HttpServer.matchesPrefix("/mcp", "/mcp?project=/x"))
    assert.isFalse(HttpServer.matchesPrefix("/mcp", "/mcpx"))
    assert.isFalse(HttpServer.matchesPrefix("/mcp", "/"))
    assert.isTrue(HttpServer.matchesPrefix("/", "/anything"))
  })
})
