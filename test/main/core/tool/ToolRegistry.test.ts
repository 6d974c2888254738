import { readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Deferred, Effect, Exit, Fiber, Layer, Schema, Scope } from "effect"
import { EventBus } from "@core/events/EventBus"
import { ToolOutputStore } from "@core/output/ToolOutputStore"
import { ApplicationTools } from "@core/tool/ApplicationTools"
import { Tool } from "@core/tool/Tool"
import { ToolRegistry } from "@core/tool/ToolRegistry"
import { Tools } from "@core/tool/Tools"
import { makeTempDir } from "../../../support/temp"
import { callOf, locationLayer, names, replying, sessionID } from "./support"

const dataDir = makeTempDir()
const deny = (action: string, resource = "*") => ({ action, resource, effect: "deny" as const })
const allow = (action: string, resource = "*") => ({ action, resource, effect: "allow" as const })

describe("ToolRegistry", () => {
  it.effect("hides a tool only when the last rule matching its action denies every resource", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      yield* registry.register({ question: replying("q"), read: replying("r"), bash: replying("b") })
      assert.deepStrictEqual(names(yield* registry.materialize()), ["question", "read", "bash"])
      assert.deepStrictEqual(names(yield* registry.materialize([deny("question")])), ["read", "bash"])
      assert.deepStrictEqual(names(yield* registry.materialize([deny("*"), allow("question", "private")])), [
        "question",
      ])
      assert.deepStrictEqual(names(yield* registry.materialize([allow("question", "private"), deny("*")])), [])
      assert.deepStrictEqual(names(yield* registry.materialize([deny("bash", "rm *"), deny("re?d", "*")])), [
        "question",
        "bash",
      ])
      assert.deepStrictEqual(names(yield* registry.materialize([deny("bash"), { ...deny("bash"), effect: "ask" }])), [
        "question",
        "read",
        "bash",
      ])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("hides edit, write and apply_patch together when their shared edit action is denied", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      yield* registry.register({
        read: replying("read"),
        write: Tool.withPermission(replying("write"), "edit"),
        edit: Tool.withPermission(replying("edit"), "edit"),
        apply_patch: Tool.withPermission(replying("patch"), "edit"),
      })
      assert.deepStrictEqual(names(yield* registry.materialize([deny("edit")])), ["read"])
      assert.deepStrictEqual(names(yield* registry.materialize([deny("write")])), [
        "read",
        "write",
        "edit",
        "apply_patch",
      ])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("keeps permission decoration isolated between registrations of one tool", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const shared = replying("shared")
      yield* registry.register({ write: Tool.withPermission(shared, "edit"), echo: shared })
      assert.deepStrictEqual(names(yield* registry.materialize([deny("edit")])), ["echo"])
      assert.deepStrictEqual(names(yield* registry.materialize([deny("echo")])), ["write"])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("reuses model definitions across provider turns", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      yield* registry.register({ echo: replying("a"), other: replying("b") })
      const first = yield* registry.materialize()
      const second = yield* registry.materialize([deny("other")])
      assert.strictEqual(second.definitions[0], first.definitions[0])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("removes a tool from the definitions when its registration scope closes", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const scope = yield* Scope.make()
      yield* registry.register({ echo: replying("a") }).pipe(Scope.provide(scope))
      assert.deepStrictEqual(names(yield* registry.materialize()), ["echo"])
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(names(yield* registry.materialize()), [])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("preserves an interrupted registration until its scope closes", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const scope = yield* Scope.make()
      const registered = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(
        registry
          .register({ echo: replying("a") })
          .pipe(
            Effect.andThen(Deferred.succeed(registered, undefined)),
            Effect.andThen(Effect.never),
            Scope.provide(scope),
          ),
      )
      yield* Deferred.await(registered)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(names(yield* registry.materialize()), ["echo"])
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(names(yield* registry.materialize()), [])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("leaves nothing behind when registering into an already closed scope", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const scope = yield* Scope.make()
      yield* Scope.close(scope, Exit.void)
      yield* registry.register({ echo: replying("a") }).pipe(Scope.provide(scope))
      assert.deepStrictEqual(names(yield* registry.materialize()), [])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("settles a ToolFailure as an error result with its message and nothing else", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const refusing = Tool.make({
        description: "Refuses",
        input: Schema.Struct({}),
        output: Schema.String,
        execute: () => Effect.fail(new Tool.ToolFailure({ message: "Denied" })),
      })
      yield* registry.register({ refusing })
      const turn = yield* registry.materialize()
      assert.deepStrictEqual(yield* turn.settle(callOf("refusing")), { result: { type: "error", value: "Denied" } })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("answers Unknown tool for a name the turn did not advertise and runs nothing", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const calls: Array<string> = []
      yield* registry.register({ echo: replying("a", calls), hidden: replying("h", calls) })
      const turn = yield* registry.materialize([deny("hidden")])
      assert.deepStrictEqual(yield* turn.settle(callOf("missing")), {
        result: { type: "error", value: "Unknown tool: missing" },
      })
      assert.deepStrictEqual(yield* turn.settle(callOf("hidden")), {
        result: { type: "error", value: "Unknown tool: hidden" },
      })
      assert.deepStrictEqual(calls, [])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("lets an executor defect or interruption escape settlement", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const make = (execute: () => Effect.Effect<string, Tool.ToolFailure>) =>
        Tool.make({ description: "x", input: Schema.Struct({}), output: Schema.String, execute })
      yield* registry.register({
        dies: make(() => Effect.die("unexpected executor defect")),
        stops: make(() => Effect.interrupt),
      })
      const turn = yield* registry.materialize()
      const died = yield* Effect.exit(turn.settle(callOf("dies")))
      assert.isTrue(Exit.isFailure(died))
      if (Exit.isFailure(died)) {
        assert.isTrue(Cause.hasDies(died.cause))
        assert.strictEqual(Cause.squash(died.cause), "unexpected executor defect")
      }
      const stopped = yield* Effect.exit(turn.settle(callOf("stops")))
      assert.isTrue(Exit.isFailure(stopped) && Cause.hasInterrupts(stopped.cause))
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("fails the settlement with the storage error when the full output cannot be saved", () => {
    const brokenDir = makeTempDir()
    writeFileSync(join(brokenDir, "tool-output"), "a file where the directory should be")
    return Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      yield* registry.register({ big: replying("x".repeat(60_000)) })
      const turn = yield* registry.materialize()
      const error = yield* Effect.flip(turn.settle(callOf("big")))
      assert.instanceOf(error, ToolOutputStore.StorageError)
      assert.strictEqual(error._tag, "ToolOutputStore.StorageError")
      assert.strictEqual(error.operation, "write")
    }).pipe(Effect.provide(locationLayer(brokenDir)))
  })

  it.effect("exposes settlement only through materialization", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const tools = yield* Tools.Service
      assert.sameMembers(Object.keys(registry), ["register", "materialize"])
      for (const property of ["definitions", "execute", "settle"]) assert.notProperty(registry, property)
      assert.deepStrictEqual(Object.keys(tools), ["register"])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("registers through the narrow Tools service into the same Location catalog", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const tools = yield* Tools.Service
      yield* tools.register({ echo: replying("from tools") })
      const turn = yield* registry.materialize()
      assert.deepStrictEqual(names(turn), ["echo"])
      assert.deepStrictEqual((yield* turn.settle(callOf("echo"))).result, { type: "text", value: "from tools" })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("passes complete invocation identity to the canonical handler", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const seen: Array<Tool.Context> = []
      yield* registry.register({
        who: Tool.make({
          description: "Who am I",
          input: Schema.Struct({}),
          output: Schema.String,
          execute: (_input, context) => Effect.sync(() => (seen.push(context), "ok")),
        }),
      })
      const turn = yield* registry.materialize()
      yield* turn.settle(callOf("who", {}, "provider-call-7"))
      assert.deepStrictEqual(seen, [
        { sessionID, agent: "build", assistantMessageID: "msg_1", toolCallID: "provider-call-7" },
      ])
      assert.sameMembers(Object.keys(seen[0]!), ["sessionID", "agent", "assistantMessageID", "toolCallID"])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("bounds every successful settlement once and returns its output paths", () => {
    const outputDir = makeTempDir()
    return Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const bus = yield* EventBus.Service
      const outputs = yield* ToolOutputStore.Service
      const long = Array.from({ length: 2500 }, (_, i) => `line ${i}`).join("\n")
      yield* registry.register({ small: replying("short"), long: replying(long) })
      const turn = yield* registry.materialize()

      const small = yield* turn.settle(callOf("small"))
      assert.deepStrictEqual(small, {
        result: { type: "text", value: "short" },
        output: { structured: "short", content: [{ type: "text", text: "short" }] },
      })
      assert.strictEqual(bus.sequence(), 0)

      const settled = yield* turn.settle(callOf("long", {}, "call-long"))
      const files = readdirSync(join(outputDir, "tool-output"))
      assert.strictEqual(files.length, 1)
      const path = join(outputDir, "tool-output", files[0]!)
      assert.deepStrictEqual(settled.outputPaths, [path])
      assert.strictEqual(settled.output?.structured, long)
      assert.strictEqual(settled.result.type, "text")
      const text = settled.result.type === "text" ? settled.result.value : ""
      assert.include(text, `... output truncated; full content saved to ${path} ...`)
      assert.isTrue(text.startsWith("line 0\nline 1\n"))
      assert.isTrue(text.endsWith("line 2498\nline 2499"))
      assert.strictEqual(bus.sequence(), 1)
      const [recorded] = yield* outputs.list()
      assert.deepInclude(recorded!, { path, sessionId: sessionID, toolCallId: "call-long", tool: "long" })
    }).pipe(Effect.provide(locationLayer(outputDir)))
  })

  it.effect("gives the handler the decoded input and the projection the encoded output", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      yield* registry.register({
        double: Tool.make({
          description: "Doubles",
          input: Schema.Struct({ n: Schema.NumberFromString }),
          output: Schema.NumberFromString,
          execute: (input) => Effect.succeed(input.n * 2),
          toModelOutput: ({ input, output }) => [{ type: "text", text: `${typeof input.n}:${typeof output}` }],
        }),
      })
      const turn = yield* registry.materialize()
      const settled = yield* turn.settle(callOf("double", { n: "21" }))
      assert.deepStrictEqual(settled, {
        result: { type: "text", value: "number:string" },
        output: { structured: "42", content: [{ type: "text", text: "number:string" }] },
      })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("reports invalid input and invalid output as error results without a success", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      let executed = 0
      yield* registry.register({
        echo: Tool.make({
          description: "Echo",
          input: Schema.Struct({ text: Schema.String }),
          output: Schema.Number,
          execute: (input) => Effect.sync(() => ((executed += 1), input.text as unknown as number)),
        }),
      })
      const turn = yield* registry.materialize()
      const invalidInput = yield* turn.settle(callOf("echo", { text: 5 }))
      assert.strictEqual(invalidInput.result.type, "error")
      assert.include(String(invalidInput.result.value), "Invalid tool input")
      assert.strictEqual(executed, 0)
      const invalidOutput = yield* turn.settle(callOf("echo", { text: "five" }))
      assert.strictEqual(invalidOutput.result.type, "error")
      assert.include(String(invalidOutput.result.value), "invalid value for its output schema")
      assert.notProperty(invalidOutput, "output")
      assert.strictEqual(executed, 1)
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("settles an unchanged advertised registration normally", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      yield* registry.register({ echo: replying("same") })
      const turn = yield* registry.materialize()
      yield* registry.materialize()
      assert.deepStrictEqual((yield* turn.settle(callOf("echo"))).result, { type: "text", value: "same" })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("refuses a call whose registration was removed after materialization as stale", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const calls: Array<string> = []
      const scope = yield* Scope.make()
      yield* registry.register({ echo: replying("a", calls) }).pipe(Scope.provide(scope))
      const turn = yield* registry.materialize()
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(yield* turn.settle(callOf("echo")), {
        result: { type: "error", value: "Stale tool call: echo" },
      })
      assert.deepStrictEqual(calls, [])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("rejects only the replaced name from a multi-tool provider turn", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const calls: Array<string> = []
      yield* registry.register({ first: replying("first v1", calls), second: replying("second", calls) })
      const turn = yield* registry.materialize()
      yield* registry.register({ first: replying("first v2", calls) })
      assert.deepStrictEqual((yield* turn.settle(callOf("first"))).result, {
        type: "error",
        value: "Stale tool call: first",
      })
      assert.deepStrictEqual((yield* turn.settle(callOf("second"))).result, { type: "text", value: "second" })
      assert.deepStrictEqual(calls, ["second"])
      const next = yield* registry.materialize()
      assert.deepStrictEqual((yield* next.settle(callOf("first"))).result, { type: "text", value: "first v2" })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("treats a closed overlay that reveals an older registration as stale", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      yield* registry.register({ echo: replying("base") })
      const overlay = yield* Scope.make()
      yield* registry.register({ echo: replying("overlay") }).pipe(Scope.provide(overlay))
      const turn = yield* registry.materialize()
      yield* Scope.close(overlay, Exit.void)
      assert.deepStrictEqual((yield* turn.settle(callOf("echo"))).result, {
        type: "error",
        value: "Stale tool call: echo",
      })
      const next = yield* registry.materialize()
      assert.deepStrictEqual((yield* next.settle(callOf("echo"))).result, { type: "text", value: "base" })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("treats a process tool overridden by a later Location registration as stale", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const applications = yield* ApplicationTools.Service
      yield* applications.register({ echo: replying("process") })
      const turn = yield* registry.materialize()
      yield* registry.register({ echo: replying("location") })
      assert.deepStrictEqual((yield* turn.settle(callOf("echo"))).result, {
        type: "error",
        value: "Stale tool call: echo",
      })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("treats a closed Location override that reveals the process tool as stale", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const applications = yield* ApplicationTools.Service
      yield* applications.register({ echo: replying("process") })
      const override = yield* Scope.make()
      yield* registry.register({ echo: replying("location") }).pipe(Scope.provide(override))
      const turn = yield* registry.materialize()
      assert.deepStrictEqual(names(turn), ["echo"])
      yield* Scope.close(override, Exit.void)
      assert.deepStrictEqual((yield* turn.settle(callOf("echo"))).result, {
        type: "error",
        value: "Stale tool call: echo",
      })
      const next = yield* registry.materialize()
      assert.deepStrictEqual((yield* next.settle(callOf("echo"))).result, { type: "text", value: "process" })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("keeps a running call on its captured handler after the registration is replaced", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const slow = Tool.make({
        description: "Slow",
        input: Schema.Struct({}),
        output: Schema.String,
        execute: () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.andThen(Deferred.await(release)),
            Effect.as("original handler"),
          ),
      })
      const scope = yield* Scope.make()
      yield* registry.register({ slow }).pipe(Scope.provide(scope))
      const turn = yield* registry.materialize()
      const running = yield* Effect.forkChild(turn.settle(callOf("slow")))
      yield* Deferred.await(started)
      yield* Scope.close(scope, Exit.void)
      yield* registry.register({ slow: replying("replacement") })
      yield* Deferred.succeed(release, undefined)
      const settled = yield* Fiber.join(running)
      assert.deepStrictEqual(settled.result, { type: "text", value: "original handler" })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("lists process tools first in order, keeping the position of a Location override", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.Service
      const applications = yield* ApplicationTools.Service
      yield* applications.register({ alpha: replying("a"), beta: replying("b") })
      yield* registry.register({ gamma: replying("g"), alpha: replying("a2") })
      const turn = yield* registry.materialize()
      assert.deepStrictEqual(names(turn), ["alpha", "beta", "gamma"])
      assert.deepStrictEqual((yield* turn.settle(callOf("alpha"))).result, { type: "text", value: "a2" })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("rejects a whole Location record with one bad entry before changing anything", () =>
    Effect.gen(function* () {
      const tools = yield* Tools.Service
      const registry = yield* ToolRegistry.Service
      yield* tools.register({ healthy: replying("h") })
      const badName = yield* Effect.flip(tools.register({ ok: replying("ok"), "invalid name": replying("x") }))
      assert.instanceOf(badName, Tool.RegistrationError)
      assert.deepInclude(badName, { name: "invalid name", message: "Invalid tool name: invalid name" })
      const badValue = yield* Effect.flip(
        tools.register({ ok: replying("ok"), broken: { nope: true } as unknown as Tool.AnyTool }),
      )
      assert.deepInclude(badValue, { _tag: "Tool.RegistrationError", name: "broken", message: "Invalid Tool value" })
      assert.deepStrictEqual(names(yield* registry.materialize()), ["healthy"])
      yield* tools.register({})
      assert.deepStrictEqual(names(yield* registry.materialize()), ["healthy"])
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )

  it.effect("keeps each Location's registrations apart while sharing process tools", () =>
    Effect.gen(function* () {
      const applications = yield* ApplicationTools.Service
      const first = Context.get(yield* Layer.build(ToolRegistry.layer), ToolRegistry.Service)
      const second = Context.get(yield* Layer.build(ToolRegistry.layer), ToolRegistry.Service)
      assert.notStrictEqual(first, second)
      yield* applications.register({ shared: replying("process") })
      yield* first.register({ local: replying("first only"), shared: replying("first override") })
      assert.deepStrictEqual(names(yield* first.materialize()), ["shared", "local"])
      assert.deepStrictEqual(names(yield* second.materialize()), ["shared"])
      const turn = yield* second.materialize()
      assert.deepStrictEqual((yield* turn.settle(callOf("shared"))).result, { type: "text", value: "process" })
    }).pipe(Effect.provide(locationLayer(dataDir))),
  )
})
