import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Queue, Schema } from "effect"
import fc from "fast-check"
import type { Todo } from "@contract/model"
import type { Config } from "@core/config/Config"
import { EventBus } from "@core/events/EventBus"
import { Todos } from "@core/session/Todos"
import { TodoWriteTool } from "@main/tools/todowrite"
import { autoAnswer, locationTestLayer, makeSession } from "../../support/location"
import { makeTempDir } from "../../support/temp"
import { errorText, registered, resultText, watchEvents } from "./support/registered"

const root = makeTempDir()
const directory = join(root, "project")
mkdirSync(directory)
const askEverything: Config.GatehouseConfig = {
  agents: { build: [{ action: "*", resource: "*", effect: "ask" }] },
}
const layer = (config: Config.GatehouseConfig = askEverything) =>
  locationTestLayer({ dataDir: makeTempDir(), directory, config })

const plan: ReadonlyArray<Todo> = [
  { content: "Read the spec", status: "completed", priority: "high" },
  { content: "Write the tool", status: "in_progress", priority: "high" },
  { content: "Write the tests", status: "pending", priority: "medium" },
]

describe("TodoWriteTool", () => {
  it.effect("asks todowrite, replaces the session's list, announces it and answers with pretty JSON", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* makeSession()
        const asks = yield* autoAnswer(() => ({ reply: "once" }))
        const events = yield* watchEvents("session.todos.updated")
        const todos = yield* Todos.Service
        const { settle } = yield* registered(TodoWriteTool.name, yield* TodoWriteTool.make, session.id)

        const settlement = yield* settle({ todos: plan })
        assert.strictEqual(resultText(settlement), JSON.stringify(plan, null, 2))
        assert.deepStrictEqual(settlement.output?.structured, { todos: plan })
        assert.deepStrictEqual(yield* todos.list(session.id), plan)
        assert.deepStrictEqual(yield* Queue.take(events), {
          _tag: "session.todos.updated",
          sessionID: session.id,
          todos: plan,
        })
        assert.deepStrictEqual(
          asks.map((ask) => [ask.action, ask.resources, ask.save, ask.sessionID, ask.source?.type]),
          [["todowrite", ["*"], ["*"], session.id, "tool"]],
        )

        const next = [{ content: "Ship", status: "pending", priority: "low" }] as const
        yield* settle({ todos: next })
        assert.deepStrictEqual(yield* todos.list(session.id), next)
        assert.deepStrictEqual(yield* Queue.take(events), {
          _tag: "session.todos.updated",
          sessionID: session.id,
          todos: next,
        })
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("leaves the list alone when the general agent's default rules deny it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* makeSession("general")
        const todos = yield* Todos.Service
        yield* todos.update({ sessionID: session.id, todos: plan })
        const bus = yield* EventBus.Service
        const { settle } = yield* registered(TodoWriteTool.name, yield* TodoWriteTool.make, session.id)
        const before = bus.sequence()
        const settlement = yield* settle({ todos: [] }, { agent: "general" })
        assert.strictEqual(errorText(settlement), "Unable to update todos")
        assert.deepStrictEqual(yield* todos.list(session.id), plan)
        // A configured deny asks nothing and changes nothing: not one event.
        assert.strictEqual(bus.sequence(), before)
      }),
    ).pipe(Effect.provide(layer({}))),
  )

  it.effect("passes a rejection's feedback to the model", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* makeSession()
        yield* autoAnswer(() => ({ reply: "reject", message: "keep the old plan" }))
        const { settle } = yield* registered(TodoWriteTool.name, yield* TodoWriteTool.make, session.id)
        assert.strictEqual(
          errorText(yield* settle({ todos: plan })),
          "The user rejected permission to use this specific tool call with the following feedback: keep the old plan",
        )
        assert.deepStrictEqual(yield* (yield* Todos.Service).list(session.id), [])
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("refuses unknown statuses and priorities as invalid input without asking", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* makeSession()
        const asks = yield* autoAnswer(() => ({ reply: "once" }))
        const { settle } = yield* registered(TodoWriteTool.name, yield* TodoWriteTool.make, session.id)
        const status = errorText(yield* settle({ todos: [{ content: "x", status: "done", priority: "high" }] }))
        assert.match(status, /^Invalid tool input: todos\[0\]\.status: /)
        const priority = errorText(yield* settle({ todos: [{ content: "x", status: "pending", priority: "urgent" }] }))
        assert.match(priority, /^Invalid tool input: todos\[0\]\.priority: /)
        assert.strictEqual(asks.length, 0)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("never runs the executor for random undecodable input and never crashes", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* makeSession()
        const asks = yield* autoAnswer(() => ({ reply: "once" }))
        const { settle } = yield* registered(TodoWriteTool.name, yield* TodoWriteTool.make, session.id)
        const decodes = (input: unknown) =>
          Exit.isSuccess(Schema.decodeUnknownExit(Schema.toCodecJson(TodoWriteTool.Input))(input))
        const todo = fc.record(
          {
            content: fc.oneof(fc.string(), fc.jsonValue()),
            status: fc.oneof(
              fc.constantFrom("pending", "in_progress", "completed", "cancelled", "done"),
              fc.jsonValue(),
            ),
            priority: fc.oneof(fc.constantFrom("high", "medium", "low", "urgent"), fc.jsonValue()),
          },
          { requiredKeys: [] },
        )
        const input = fc.oneof(
          fc.jsonValue(),
          fc.record({ todos: fc.oneof(fc.array(todo, { maxLength: 4 }), fc.jsonValue()) }),
        )
        const context = yield* Effect.context<never>()
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(input, async (value) => {
              const asksBefore = asks.length
              const exit = await Effect.runPromiseExitWith(context)(settle(value))
              if (!Exit.isSuccess(exit)) return false
              if (decodes(value)) return true
              return (
                exit.value.result.type === "error" &&
                exit.value.result.value.startsWith("Invalid tool input: ") &&
                asks.length === asksBefore
              )
            }),
            { numRuns: 60 },
          ),
        )
      }),
    ).pipe(Effect.provide(layer())),
  )
})
