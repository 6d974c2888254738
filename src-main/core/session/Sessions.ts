import { Context, Effect, Layer, Schema } from "effect"
import { ProjectId, SessionId } from "@contract/ids"
import { SessionStatus, type Session } from "@contract/model"
import { EventBus } from "../events/EventBus"
import { newId } from "../id/Identifier"
import { Store } from "../store/Store"
import { sql } from "../store/sql"

export * as Sessions from "./Sessions"

export class NotFoundError extends Schema.TaggedError<NotFoundError>()("Sessions.NotFoundError", {
  sessionID: Schema.String,
}) {
  override get message() {
    return `Session not found: ${this.sessionID}`
  }
}

export interface CreateInput {
  readonly projectId: ProjectId
  readonly agent: string
  readonly title: string
  /** `runner`, `mcp:<client name>` or `opencode:<server>`. */
  readonly source: string
  readonly status?: SessionStatus
  /** The provider driving a runner session. */
  readonly provider?: string
}

export interface StatusOptions {
  /** Why the session is in the new status; cleared when absent. */
  readonly reason?: string
  /** Change only from one of these statuses (compare-and-set); otherwise the session is left as it is. */
  readonly from?: ReadonlyArray<SessionStatus>
}

export interface Interface {
  readonly create: (input: CreateInput) => Effect.Effect<Session>
  readonly get: (id: SessionId) => Effect.Effect<Session, NotFoundError>
  /** The session, or `undefined` when it does not exist (synchronous, for atomic blocks). */
  readonly findUnsafe: (id: SessionId) => Session | undefined
  readonly list: () => Effect.Effect<ReadonlyArray<Session>>
  readonly listUnsafe: () => ReadonlyArray<Session>
  /**
   * Changes the status and its reason (and the last-activity time) and publishes `session.updated`;
   * nothing happens when both are unchanged or the current status is not in `options.from`.
   */
  readonly setStatus: (
    id: SessionId,
    status: SessionStatus,
    options?: StatusOptions,
  ) => Effect.Effect<Session, NotFoundError>
  /** Renames the session (a connected server's session got its title) and publishes `session.updated`. */
  readonly setTitle: (id: SessionId, title: string) => Effect.Effect<Session, NotFoundError>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/session/Sessions") {}

const Row = Schema.Struct({
  id: SessionId,
  project_id: ProjectId,
  agent: Schema.String,
  title: Schema.String,
  source: Schema.String,
  status: SessionStatus,
  status_reason: Schema.NullOr(Schema.String),
  provider: Schema.NullOr(Schema.String),
  created_at: Schema.Number,
  updated_at: Schema.Number,
})
const columns = sql`id, project_id, agent, title, source, status, status_reason, provider, created_at, updated_at`
const toSession = (row: typeof Row.Type): Session => ({
  id: row.id,
  projectId: row.project_id,
  agent: row.agent,
  title: row.title,
  source: row.source,
  status: row.status,
  ...(row.status_reason !== null ? { reason: row.status_reason } : {}),
  ...(row.provider !== null ? { provider: row.provider } : {}),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const store = yield* Store.Service
    const bus = yield* EventBus.Service

    const findUnsafe = (id: SessionId) => {
      const row = store.get(Row, sql`SELECT ${columns} FROM session WHERE id = ${id}`)
      return row && toSession(row)
    }
    const listUnsafe = () => store.all(Row, sql`SELECT ${columns} FROM session ORDER BY created_at, id`).map(toSession)

    const create = Effect.fn("Sessions.create")(function* (input: CreateInput) {
      return yield* Effect.sync(() => {
        const now = Date.now()
        const session: Session = {
          id: newId.session(),
          projectId: input.projectId,
          agent: input.agent,
          title: input.title,
          source: input.source,
          status: input.status ?? "idle",
          ...(input.provider !== undefined ? { provider: input.provider } : {}),
          createdAt: now,
          updatedAt: now,
        }
        store.run(
          sql`INSERT INTO session (id, project_id, agent, title, source, status, provider, created_at, updated_at)
              VALUES (${session.id}, ${session.projectId}, ${session.agent}, ${session.title}, ${session.source}, ${session.status}, ${input.provider ?? null}, ${now}, ${now})`,
        )
        bus.publishUnsafe({ _tag: "session.created", session })
        return session
      })
    })

    const setStatus = Effect.fn("Sessions.setStatus")(function* (
      id: SessionId,
      status: SessionStatus,
      options: StatusOptions = {},
    ) {
      const updated = yield* Effect.sync(() =>
        store.transaction(() => {
          const current = findUnsafe(id)
          if (!current) return undefined
          if (options.from && !options.from.includes(current.status)) return current
          if (current.status === status && current.reason === options.reason) return current
          const { reason: _, ...rest } = current
          const session: Session = {
            ...rest,
            status,
            ...(options.reason !== undefined ? { reason: options.reason } : {}),
            updatedAt: Date.now(),
          }
          store.run(
            sql`UPDATE session SET status = ${status}, status_reason = ${options.reason ?? null},
                  updated_at = ${session.updatedAt} WHERE id = ${id}`,
          )
          bus.publishUnsafe({ _tag: "session.updated", session })
          return session
        }),
      )
      if (!updated) return yield* new NotFoundError({ sessionID: id })
      return updated
    })

    const setTitle = Effect.fn("Sessions.setTitle")(function* (id: SessionId, title: string) {
      const updated = yield* Effect.sync(() =>
        store.transaction(() => {
          const current = findUnsafe(id)
          if (!current || current.title === title) return current
          const session: Session = { ...current, title, updatedAt: Date.now() }
          store.run(sql`UPDATE session SET title = ${title}, updated_at = ${session.updatedAt} WHERE id = ${id}`)
          bus.publishUnsafe({ _tag: "session.updated", session })
          return session
        }),
      )
      if (!updated) return yield* new NotFoundError({ sessionID: id })
      return updated
    })

    return Service.of({
      create,
      setTitle,
      get: (id) =>
        Effect.suspend(() => {
          const session = findUnsafe(id)
          return session ? Effect.succeed(session) : Effect.fail(new NotFoundError({ sessionID: id }))
        }),
      findUnsafe,
      list: () => Effect.sync(listUnsafe),
      listUnsafe,
      setStatus,
    })
  }),
)
