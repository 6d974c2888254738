import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Schema, Scope } from "effect"
import { ApplicationTools } from "@core/tool/ApplicationTools"
import { Tool } from "@core/tool/Tool"
import { ToolRegistry } from "@core/tool/ToolRegistry"
import { Tools } from "@core/tool/Tools"
import { makeTempDir } from "../../../support/temp"
import { callOf, locationLayer, names, replying } from "./support"

const dataDir = makeTempDir()

describe("ApplicationTools", () => {
  it.effect("keeps the carrier opaque and settles file content as a data URI content result", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      const registry = yield* ToolRegistry.Service
      const picture = Tool.make({
        description: "Returns a picture",
        input: Schema.Struct({}),
        output: Schema.Struct({ data: Schema.String }),
        execute: () => Effect.succeed({ data: "iVBORw0KGgo=" }),
        toModelOutput: ({ output }) => [
          { type: "text", text: "Image read successfully" },
          { type: "file", data: output.data, mime: "image/png", name: "pixel.png" },
        ],
      })
      assert.deepStrictEqual(Object.keys(picture), [])
      yield* applications.register({ picture })
      const turn = yield* registry.materialize()
      const settled = yield* turn.settle(callOf("picture"))
      assert.deepStrictEqual(settled.result, {
        type: "content",
        value: [
          { type: "text", text: "Image read successfully" },
          { type: "file", uri: "data:image/png;base64,iVBORw0KGgo=", mime: "image/png", name: "pixel.png" },
        ],
      })
      assert.deepStrictEqual(settled.output?.structured, { data: "iVBORw0KGgo=" })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("rejects an invalid tool name with Tool.RegistrationError", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      const tools = yield* Tools.Service
      for (const register of [applications.register, tools.register]) {
        const error = yield* Effect.flip(register({ "invalid name": replying("x") }))
        assert.instanceOf(error, Tool.RegistrationError)
        assert.strictEqual(error._tag, "Tool.RegistrationError")
        assert.strictEqual(error.name, "invalid name")
        assert.strictEqual(error.message, "Invalid tool name: invalid name")
      }
      assert.strictEqual(applications.entries().size, 0)
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("rejects invalid opaque tools before mutating application registrations", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      yield* applications.register({ healthy: replying("healthy") })
      const before = applications.entries()
      const error = yield* Effect.flip(
        applications.register({ ok: replying("ok"), fake: Object.freeze({}) as unknown as Tool.AnyTool }),
      )
      assert.instanceOf(error, Tool.RegistrationError)
      assert.strictEqual(error.name, "fake")
      assert.strictEqual(error.message, "Invalid Tool value")
      assert.deepStrictEqual([...applications.entries().keys()], ["healthy"])
      assert.strictEqual(applications.entries().get("healthy"), before.get("healthy"))
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("filters an application tool by its name without adding execution authorization", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      const registry = yield* ToolRegistry.Service
      const calls: Array<string> = []
      yield* applications.register({ echo: replying("ran", calls) })
      const hidden = yield* registry.materialize([{ action: "echo", resource: "*", effect: "deny" }])
      assert.deepStrictEqual(names(hidden), [])
      // A deny on one resource is the tool's own business at run time; the registry still runs it.
      const visible = yield* registry.materialize([{ action: "echo", resource: "secret/*", effect: "deny" }])
      assert.deepStrictEqual(names(visible), ["echo"])
      assert.deepStrictEqual((yield* visible.settle(callOf("echo"))).result, { type: "text", value: "ran" })
      assert.deepStrictEqual(calls, ["ran"])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("removes an application registration when its scope closes", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      const registry = yield* ToolRegistry.Service
      const scope = yield* Scope.make()
      yield* applications.register({ echo: replying("a") }).pipe(Scope.provide(scope))
      assert.deepStrictEqual(names(yield* registry.materialize()), ["echo"])
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(applications.entries().size, 0)
      const turn = yield* registry.materialize()
      assert.deepStrictEqual(yield* turn.settle(callOf("echo")), {
        result: { type: "error", value: "Unknown tool: echo" },
      })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("leaves nothing registered when the scope is already closed", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      const scope = yield* Scope.make()
      yield* Scope.close(scope, Exit.void)
      yield* applications.register({ echo: replying("a") }).pipe(Scope.provide(scope))
      assert.strictEqual(applications.entries().size, 0)
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("keeps an interrupted application registration until its scope closes", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      const scope = yield* Scope.make()
      const registered = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(
        applications
          .register({ echo: replying("a") })
          .pipe(
            Effect.andThen(Deferred.succeed(registered, undefined)),
            Effect.andThen(Effect.never),
            Scope.provide(scope),
          ),
      )
      yield* Deferred.await(registered)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual([...applications.entries().keys()], ["echo"])
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(applications.entries().size, 0)
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("captures the registered record so later changes to it have no effect", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      const registry = yield* ToolRegistry.Service
      const record: Record<string, Tool.AnyTool> = { echo: replying("original") }
      yield* applications.register(record)
      record.echo = replying("mutated")
      record.extra = replying("extra")
      const turn = yield* registry.materialize()
      assert.deepStrictEqual(names(turn), ["echo"])
      assert.deepStrictEqual((yield* turn.settle(callOf("echo"))).result, { type: "text", value: "original" })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("lets the latest same-name registration win and restores the earlier one when it closes", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      const registry = yield* ToolRegistry.Service
      yield* applications.register({ echo: replying("first"), keep: replying("keep") })
      const earlier = applications.entries().get("echo")
      const later = yield* Scope.make()
      yield* applications.register({ echo: replying("second") }).pipe(Scope.provide(later))
      assert.notStrictEqual(applications.entries().get("echo"), earlier)
      assert.deepStrictEqual((yield* (yield* registry.materialize()).settle(callOf("echo"))).result, {
        type: "text",
        value: "second",
      })
      yield* Scope.close(later, Exit.void)
      assert.strictEqual(applications.entries().get("echo")?.identity, earlier?.identity)
      assert.deepStrictEqual([...applications.entries().keys()], ["echo", "keep"])
      assert.deepStrictEqual((yield* (yield* registry.materialize()).settle(callOf("echo"))).result, {
        type: "text",
        value: "first",
      })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("removes a middle registration exactly, keeping the ones before and after it", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      yield* applications.register({ echo: replying("first") })
      const middle = yield* Scope.make()
      yield* applications.register({ echo: replying("second"), other: replying("o") }).pipe(Scope.provide(middle))
      yield* applications.register({ echo: replying("third") })
      const top = applications.entries().get("echo")
      yield* Scope.close(middle, Exit.void)
      assert.strictEqual(applications.entries().get("echo"), top)
      assert.deepStrictEqual([...applications.entries().keys()], ["echo"])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("keeps the Location tool when an application tool has the same name", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      const tools = yield* Tools.Service
      const registry = yield* ToolRegistry.Service
      const calls: Array<string> = []
      yield* applications.register({ echo: replying("application", calls) })
      yield* tools.register({ echo: replying("location", calls) })
      const turn = yield* registry.materialize()
      assert.deepStrictEqual(names(turn), ["echo"])
      assert.deepStrictEqual((yield* turn.settle(callOf("echo"))).result, { type: "text", value: "location" })
      assert.deepStrictEqual(calls, ["location"])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("treats an empty record as a no-op", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      const before = applications.entries()
      yield* applications.register({})
      assert.strictEqual(applications.entries(), before)
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )
})
