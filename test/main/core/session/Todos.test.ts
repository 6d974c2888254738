import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import type { Todo } from "@contract/model"
import { EventBus } from "@core/events/EventBus"
import { newId } from "@core/id/Identifier"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import { Todos } from "@core/session/Todos"
import { Store } from "@core/store/Store"
import { sql } from "@core/store/sql"
import { coreTestLayer } from "../../../support/layers"
import { makeTempDir } from "../../../support/temp"

const layer = () => coreTestLayer({ dataDir: makeTempDir() })

const session = Effect.gen(function* () {
  const projects = yield* Projects.Service
  const sessions = yield* Sessions.Service
  const project = yield* projects.ensure(makeTempDir())
  return yield* sessions.create({ projectId: project.id, agent: "build", title: "t", source: "runner" })
})

/** Every todo event published from now on. */
const todoEvents = Effect.gen(function* () {
  const bus = yield* EventBus.Service
  const subscription = yield* bus.subscribe(() => null)
  return Effect.gen(function* () {
    const events = []
    while (bus.sequence() > subscription.seq + events.length) {
      for (const envelope of yield* subscription.takeBatch) events.push(envelope.event)
    }
    return events.filter((event) => event._tag === "session.todos.updated")
  })
})

const first: ReadonlyArray<Todo> = [
  { content: "write the migration", status: "completed", priority: "high" },
  { content: "write the service", status: "in_progress", priority: "medium" },
  { content: "ship", status: "pending", priority: "low" },
]

describe("Todos", () => {
  it.effect("replaces a session's whole list in order and publishes the new list once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const todos = yield* Todos.Service
        const store = yield* Store.Service
        const a = yield* session
        const b = yield* session
        const events = yield* todoEvents
        yield* todos.update({ sessionID: a.id, todos: first })
        yield* todos.update({ sessionID: b.id, todos: [{ content: "other", status: "pending", priority: "low" }] })
        const second: ReadonlyArray<Todo> = [
          { content: "ship", status: "in_progress", priority: "high" },
          { content: "celebrate", status: "cancelled", priority: "low" },
        ]
        yield* todos.update({ sessionID: a.id, todos: second })

        assert.deepStrictEqual(yield* todos.list(a.id), second)
        assert.deepStrictEqual(todos.listUnsafe(b.id), [{ content: "other", status: "pending", priority: "low" }])
        const positions = store.all(
          Schema.Struct({ position: Schema.Number }),
          sql`SELECT position FROM todo WHERE session_id = ${a.id} ORDER BY position`,
        )
        assert.deepStrictEqual(
          positions.map((row) => row.position),
          [0, 1],
        )
        assert.deepStrictEqual(yield* events, [
          { _tag: "session.todos.updated", sessionID: a.id, todos: first },
          {
            _tag: "session.todos.updated",
            sessionID: b.id,
            todos: [{ content: "other", status: "pending", priority: "low" }],
          },
          { _tag: "session.todos.updated", sessionID: a.id, todos: second },
        ])
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("clears the list with an empty one and still announces it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const todos = yield* Todos.Service
        const a = yield* session
        yield* todos.update({ sessionID: a.id, todos: first })
        const events = yield* todoEvents
        yield* todos.update({ sessionID: a.id, todos: [] })
        assert.deepStrictEqual(yield* todos.list(a.id), [])
        assert.deepStrictEqual(yield* events, [{ _tag: "session.todos.updated", sessionID: a.id, todos: [] }])
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("refuses an unknown session and publishes nothing", () =>
    Effect.gen(function* () {
      const todos = yield* Todos.Service
      const bus = yield* EventBus.Service
      const before = bus.sequence()
      const missing = newId.session()
      const error = yield* Effect.flip(todos.update({ sessionID: missing, todos: first }))
      assert.instanceOf(error, Sessions.NotFoundError)
      assert.strictEqual(error.sessionID, missing)
      assert.strictEqual(bus.sequence(), before)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("keeps the old list and announces nothing when the replacement fails half-way", () =>
    Effect.gen(function* () {
      const todos = yield* Todos.Service
      const bus = yield* EventBus.Service
      const a = yield* session
      yield* todos.update({ sessionID: a.id, todos: first })
      const before = bus.sequence()
      // The table's CHECK refuses the third row after the delete and two inserts already ran.
      const broken = [...first.slice(0, 2), { content: "bad", status: "done", priority: "low" } as unknown as Todo]
      const exit = yield* Effect.exit(todos.update({ sessionID: a.id, todos: broken }))
      assert.isTrue(Exit.hasDies(exit))
      assert.deepStrictEqual(yield* todos.list(a.id), first)
      assert.strictEqual(bus.sequence(), before)
    }).pipe(Effect.provide(layer())),
  )
})
