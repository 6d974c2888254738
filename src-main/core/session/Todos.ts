import { Context, Effect, Layer, Schema } from "effect"
import type { SessionId } from "@contract/ids"
import { Todo, TodoPriority, TodoStatus } from "@contract/model"
import { EventBus } from "../events/EventBus"
import { commit } from "../permission/outbox"
import { Store } from "../store/Store"
import { sql } from "../store/sql"
import { Sessions } from "./Sessions"

export * as Todos from "./Todos"

export { Todo }

/**
 * Each session's todo list (the `todo` table, SPEC-CORE E.11 / H.3). `todowrite` replaces a list
 * whole: the rows and the `session.todos.updated` event change together, so a snapshot from
 * {@link Interface.listUnsafe} never disagrees with the event stream. Process-level: the table is
 * global and keyed by session.
 */
export interface Interface {
  /**
   * Replaces the session's list in one transaction (an item's position is its index) and publishes
   * `session.todos.updated` with the new list. Fails when the session does not exist.
   */
  readonly update: (input: {
    readonly sessionID: SessionId
    readonly todos: ReadonlyArray<Todo>
  }) => Effect.Effect<void, Sessions.NotFoundError>
  /** The session's list in order; empty for a session without todos (or without a row at all). */
  readonly list: (sessionID: SessionId) => Effect.Effect<ReadonlyArray<Todo>>
  /** The same, synchronously, for snapshots (EventBus consistency rule). */
  readonly listUnsafe: (sessionID: SessionId) => ReadonlyArray<Todo>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/session/Todos") {}

// Read directly rather than through Sessions.Service: this layer sits beside Sessions in the
// composition root's domain tier, which only provides the infrastructure below it.
const Found = Schema.Struct({ found: Schema.Number })
const sessionExists = (store: Store.Interface, id: SessionId) =>
  store.get(Found, sql`SELECT 1 AS found FROM session WHERE id = ${id}`) !== undefined

const Row = Schema.Struct({ content: Schema.String, status: TodoStatus, priority: TodoPriority })

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const store = yield* Store.Service
    const bus = yield* EventBus.Service

    const listUnsafe = (sessionID: SessionId): ReadonlyArray<Todo> =>
      store
        .all(Row, sql`SELECT content, status, priority FROM todo WHERE session_id = ${sessionID} ORDER BY position`)
        .map((row) => ({ content: row.content, status: row.status, priority: row.priority }))

    const update = Effect.fn("Todos.update")(function* (input: {
      readonly sessionID: SessionId
      readonly todos: ReadonlyArray<Todo>
    }) {
      const found = yield* Effect.sync(() =>
        commit(store, bus, (outbox) => {
          if (!sessionExists(store, input.sessionID)) return false
          store.run(sql`DELETE FROM todo WHERE session_id = ${input.sessionID}`)
          input.todos.forEach((todo, position) =>
            store.run(
              sql`INSERT INTO todo (session_id, position, content, status, priority)
                  VALUES (${input.sessionID}, ${position}, ${todo.content}, ${todo.status}, ${todo.priority})`,
            ),
          )
          const todos = input.todos.map((todo) => ({
            content: todo.content,
            status: todo.status,
            priority: todo.priority,
          }))
          outbox.push({ _tag: "session.todos.updated", sessionID: input.sessionID, todos })
          return true
        }),
      )
      if (!found) return yield* new Sessions.NotFoundError({ sessionID: input.sessionID })
    })

    return Service.of({
      update,
      list: (sessionID) => Effect.sync(() => listUnsafe(sessionID)),
      listUnsafe,
    })
  }),
)
