import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Schema } from "effect"
import fc from "fast-check"
import { Methods, channelOf, type Method } from "@contract/channels"
import { InvalidRequestError } from "@contract/methods"
import { exitSchemaOf, payloadSchemaOf } from "@contract/wire"
import type { Handlers } from "@main/ipc/ContractServer"
import { IpcServer } from "@main/ipc/IpcServer"
import { contractTestLayer } from "./contract"
import { makeTempDir } from "../../support/temp"

type Listener = Parameters<IpcServer.IpcMainSlice["handle"]>[1]

/** Behaves like Electron's ipcMain: one handler per channel, a second registration throws. */
class FakeIpcMain implements IpcServer.IpcMainSlice {
  readonly listeners = new Map<string, Listener>()
  handle(channel: string, listener: Listener): void {
    if (this.listeners.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`)
    this.listeners.set(channel, listener)
  }
  removeHandler(channel: string): void {
    this.listeners.delete(channel)
  }
  invoke(channel: string, frame: IpcServer.SenderFrame | null, payload?: unknown): Promise<unknown> {
    const listener = this.listeners.get(channel)
    if (!listener) return Promise.reject(new Error(`No handler registered for '${channel}'`))
    return listener({ senderFrame: frame }, payload)
  }
}

const rendererDir = "/opt/gatehouse/out/renderer"
const app = IpcServer.filesOrigin(rendererDir)
const index = `file://${rendererDir}/index.html`
const mainFrame = (url: string): IpcServer.SenderFrame => ({ url, parent: null })
const subFrame = (url: string): IpcServer.SenderFrame => ({ url, parent: mainFrame(index) })

const decodeAnswer = (method: Method, answer: unknown) =>
  Schema.decodeUnknownSync(exitSchemaOf(method))(answer) as Exit.Exit<unknown, unknown>

const failureOf = (exit: Exit.Exit<unknown, unknown>): unknown => {
  assert.isTrue(Exit.isFailure(exit))
  return Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
}

const info = { name: "Gatehouse", version: "1.2.3", dataDir: "/data", seq: 0, host: "electron" as const }

/** One handler per method, each made by `handler` (the test does not care about the real services). */
const everyMethod = (handler: (method: Method) => Effect.Effect<unknown, unknown>): Handlers<never> =>
  Object.fromEntries(Methods.map((method) => [method, () => handler(method)])) as unknown as Handlers<never>

/** Handlers that count their calls; all but `app.info` fail with a typed error to show it travels as data. */
const countingHandlers = () => {
  const calls: Array<Method> = []
  const handlers = everyMethod((method) =>
    Effect.suspend(() => {
      calls.push(method)
      return method === "app.info"
        ? Effect.succeed(info)
        : Effect.fail(new InvalidRequestError({ method, reason: "not now" }))
    }),
  )
  return { calls, handlers }
}

describe("IpcServer", () => {
  describe("admit", () => {
    const table: ReadonlyArray<readonly [string, string, IpcServer.SenderFrame | null, "Accept" | "Reject"]> = [
      ["the app's own page", channelOf("app.info"), mainFrame(index), "Accept"],
      ["the app's page with a route in the hash", channelOf("app.info"), mainFrame(`${index}#/inbox`), "Accept"],
      ["an unknown channel", "gatehouse:app.delete", mainFrame(index), "Reject"],
      ["a method name without the channel prefix", "app.info", mainFrame(index), "Reject"],
      ["a foreign https host", channelOf("app.info"), mainFrame("https://evil.example/"), "Reject"],
      ["https://app.attacker", channelOf("app.info"), mainFrame("https://app.attacker/index.html"), "Reject"],
      ["a sub-frame of the app", channelOf("app.info"), subFrame(index), "Reject"],
      ["a malformed URL", channelOf("app.info"), mainFrame("http://[::1"), "Reject"],
      ["a file outside the renderer directory", channelOf("app.info"), mainFrame("file:///etc/passwd"), "Reject"],
      [
        "a sibling directory sharing the prefix",
        channelOf("app.info"),
        mainFrame("file:///opt/gatehouse/out/renderer-evil/index.html"),
        "Reject",
      ],
      ["a dot-dot escape", channelOf("app.info"), mainFrame(`file://${rendererDir}/../main/index.js`), "Reject"],
      ["an encoded dot-dot escape", channelOf("app.info"), mainFrame(`file://${rendererDir}/%2e%2e/main/x`), "Reject"],
      ["an encoded slash", channelOf("app.info"), mainFrame(`file://${rendererDir}/..%2F..%2Fetc%2Fpasswd`), "Reject"],
      [
        "a file URL with a host",
        channelOf("app.info"),
        mainFrame(`file://evil.com${rendererDir}/index.html`),
        "Reject",
      ],
      ["the renderer directory itself", channelOf("app.info"), mainFrame(`file://${rendererDir}/`), "Reject"],
      ["a data: URL", channelOf("app.info"), mainFrame("data:text/html,<script>alert(1)</script>"), "Reject"],
      ["about:blank", channelOf("app.info"), mainFrame("about:blank"), "Reject"],
      ["a javascript: URL", channelOf("app.info"), mainFrame("javascript:alert(1)"), "Reject"],
      ["devtools", channelOf("app.info"), mainFrame("devtools://devtools/bundled/inspector.html"), "Reject"],
      ["an empty URL", channelOf("app.info"), mainFrame(""), "Reject"],
      ["a frame that is gone (null)", channelOf("app.info"), null, "Reject"],
    ]
    for (const [name, channel, frame, expected] of table) {
      it(`${expected === "Accept" ? "accepts" : "rejects"} ${name}`, () => {
        assert.strictEqual(IpcServer.admit(channel, frame, app)._tag, expected)
      })
    }

    const dev = IpcServer.serverOrigin("http://localhost:5173/")!
    const devTable: ReadonlyArray<readonly [string, boolean]> = [
      ["http://localhost:5173/#/inbox", true],
      ["HTTP://LOCALHOST:5173/", true],
      ["http://localhost:5174/", false],
      ["https://localhost:5173/", false],
      ["ws://localhost:5173/", false],
      ["http://localhost:5173@evil.com/", false],
      ["http://user:pw@localhost:5173/", false],
      ["http://localhost.evil.com:5173/", false],
      ["http://127.0.0.1:5173/", false],
      [index, false],
    ]
    for (const [url, expected] of devTable) {
      it(`${expected ? "accepts" : "rejects"} ${url} against the dev server origin`, () => {
        assert.strictEqual(IpcServer.isTrustedSender(url, true, dev), expected)
      })
    }

    it("recognises only http(s) URLs as a dev server", () => {
      assert.deepStrictEqual(IpcServer.serverOrigin("http://localhost:5173/x"), {
        _tag: "Server",
        origin: "http://localhost:5173",
      })
      assert.isUndefined(IpcServer.serverOrigin("file:///tmp/index.html"))
      assert.isUndefined(IpcServer.serverOrigin("not a url"))
    })
  })

  describe("register", () => {
    it.effect("registers one handler per method and removes them all when the scope closes", () =>
      Effect.gen(function* () {
        const ipc = new FakeIpcMain()
        const { handlers } = countingHandlers()
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* IpcServer.register({ ipcMain: ipc, app, handlers, run: Effect.runPromise })
            assert.deepStrictEqual([...ipc.listeners.keys()].sort(), Methods.map(channelOf).sort())
          }),
        )
        assert.strictEqual(ipc.listeners.size, 0)
      }),
    )

    it.effect("answers a trusted call with the encoded success", () =>
      Effect.gen(function* () {
        const ipc = new FakeIpcMain()
        const { calls, handlers } = countingHandlers()
        yield* IpcServer.register({ ipcMain: ipc, app, handlers, run: Effect.runPromise })
        const answer = yield* Effect.promise(() => ipc.invoke(channelOf("app.info"), mainFrame(index)))
        const exit = decodeAnswer("app.info", answer)
        assert.deepStrictEqual(exit, Exit.succeed(info))
        assert.deepStrictEqual(calls, ["app.info"])
      }).pipe(Effect.scoped),
    )

    it.effect("returns a typed failure as data instead of throwing it into invoke", () =>
      Effect.gen(function* () {
        const ipc = new FakeIpcMain()
        const { handlers } = countingHandlers()
        yield* IpcServer.register({ ipcMain: ipc, app, handlers, run: Effect.runPromise })
        const answer = yield* Effect.promise(() => ipc.invoke(channelOf("app.snapshot"), mainFrame(index)))
        const reason = failureOf(decodeAnswer("app.snapshot", answer)) as { readonly error: unknown }
        assert.instanceOf(reason.error, InvalidRequestError)
        assert.strictEqual((reason.error as InvalidRequestError).reason, "not now")
      }).pipe(Effect.scoped),
    )

    it.effect("refuses a foreign sender with an InvalidRequestError and never calls the handler", () =>
      Effect.gen(function* () {
        const ipc = new FakeIpcMain()
        const { calls, handlers } = countingHandlers()
        yield* IpcServer.register({ ipcMain: ipc, app, handlers, run: Effect.runPromise })
        for (const frame of [mainFrame("https://app.attacker/"), subFrame(index), null]) {
          const answer = yield* Effect.promise(() => ipc.invoke(channelOf("app.info"), frame))
          const reason = failureOf(decodeAnswer("app.info", answer)) as { readonly error: unknown }
          assert.instanceOf(reason.error, InvalidRequestError)
          assert.strictEqual((reason.error as InvalidRequestError).method, "app.info")
        }
        assert.deepStrictEqual(calls, [])
      }).pipe(Effect.scoped),
    )

    it.effect("answers an undecodable payload with an InvalidRequestError and never calls the handler", () =>
      Effect.gen(function* () {
        const ipc = new FakeIpcMain()
        const { calls, handlers } = countingHandlers()
        yield* IpcServer.register({ ipcMain: ipc, app, handlers, run: Effect.runPromise })
        for (const payload of [42, "x", { delete: "everything" }, [null]]) {
          const answer = yield* Effect.promise(() => ipc.invoke(channelOf("app.info"), mainFrame(index), payload))
          const reason = failureOf(decodeAnswer("app.info", answer)) as { readonly error: unknown }
          assert.instanceOf(reason.error, InvalidRequestError)
          assert.strictEqual((reason.error as InvalidRequestError).method, "app.info")
        }
        assert.deepStrictEqual(calls, [])
        yield* Effect.promise(() => ipc.invoke(channelOf("app.info"), mainFrame(index), null))
        assert.deepStrictEqual(calls, ["app.info"])
      }).pipe(Effect.scoped),
    )

    it.effect("treats a frame that throws on access (disposed) as gone", () =>
      Effect.gen(function* () {
        const ipc = new FakeIpcMain()
        const { calls, handlers } = countingHandlers()
        yield* IpcServer.register({ ipcMain: ipc, app, handlers, run: Effect.runPromise })
        const listener = ipc.listeners.get(channelOf("app.info"))!
        const disposed = {
          get senderFrame(): IpcServer.SenderFrame {
            throw new Error("Render frame was disposed before WebFrameMain could be accessed")
          },
        }
        const answer = yield* Effect.promise(() => listener(disposed))
        assert.isTrue(Exit.isFailure(decodeAnswer("app.info", answer)))
        assert.deepStrictEqual(calls, [])
      }).pipe(Effect.scoped),
    )

    it.effect("returns a defect as data when the handler dies", () =>
      Effect.gen(function* () {
        const ipc = new FakeIpcMain()
        const handlers = everyMethod(() => Effect.die(new Error("boom")))
        yield* IpcServer.register({ ipcMain: ipc, app, handlers, run: Effect.runPromise })
        const answer = yield* Effect.promise(() => ipc.invoke(channelOf("app.info"), mainFrame(index)))
        const reason = failureOf(decodeAnswer("app.info", answer)) as { readonly _tag: string }
        assert.strictEqual(reason._tag, "Die")
      }).pipe(Effect.scoped),
    )

    it.effect("returns a defect as data when the runtime is already gone", () =>
      Effect.gen(function* () {
        const ipc = new FakeIpcMain()
        const { handlers } = countingHandlers()
        const run = () => Promise.reject(new Error("ManagedRuntime disposed"))
        yield* IpcServer.register({ ipcMain: ipc, app, handlers, run })
        const answer = yield* Effect.promise(() => ipc.invoke(channelOf("app.info"), mainFrame(index)))
        const reason = failureOf(decodeAnswer("app.info", answer)) as { readonly _tag: string }
        assert.strictEqual(reason._tag, "Die")
        const refused = yield* Effect.promise(() =>
          ipc.invoke(channelOf("app.info"), mainFrame("https://evil.example/")),
        )
        const refusal = failureOf(decodeAnswer("app.info", refused)) as { readonly error: unknown }
        assert.instanceOf(refusal.error, InvalidRequestError)
      }).pipe(Effect.scoped),
    )

    it.effect("calls a handler exactly when its payload decodes, and always answers with data", () =>
      Effect.gen(function* () {
        const ipc = new FakeIpcMain()
        const { calls, handlers } = countingHandlers()
        yield* IpcServer.register({ ipcMain: ipc, app, handlers, run: Effect.runPromise })
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.constantFrom(...Methods), fc.anything(), async (method, payload) => {
              calls.length = 0
              // The wire carries JSON: a missing payload is null (see ContractServer).
              const decodes = Exit.isSuccess(
                Schema.decodeUnknownExit(payloadSchemaOf(method))(payload === undefined ? null : payload),
              )
              const exit = decodeAnswer(method, await ipc.invoke(channelOf(method), mainFrame(index), payload))
              assert.strictEqual(calls.length, decodes ? 1 : 0)
              if (!decodes) {
                const reason = failureOf(exit) as { readonly error: unknown }
                assert.instanceOf(reason.error, InvalidRequestError)
              }
            }),
          ),
        )
      }).pipe(Effect.scoped),
    )
  })

  describe("layer", () => {
    it.effect("serves the real handlers while the runtime lives and unregisters on dispose", () =>
      Effect.gen(function* () {
        const ipc = new FakeIpcMain()
        const dataDir = makeTempDir()
        yield* Effect.gen(function* () {
          const answer = yield* Effect.promise(() => ipc.invoke(channelOf("app.info"), mainFrame(index)))
          const exit = decodeAnswer("app.info", answer)
          assert.isTrue(Exit.isSuccess(exit))
          if (Exit.isSuccess(exit)) assert.strictEqual((exit.value as { dataDir: string }).dataDir, dataDir)
        }).pipe(
          Effect.provide(IpcServer.layer({ ipcMain: ipc, app }).pipe(Layer.provide(contractTestLayer({ dataDir })))),
        )
        assert.strictEqual(ipc.listeners.size, 0)
      }),
    )
  })
})
