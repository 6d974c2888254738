import { Context, Effect, Layer, Schema } from "effect"
import { PermissionRequestId, ProjectId, SavedApprovalId, SessionId } from "@contract/ids"
import { PermissionDecider, PermissionStatus, type PermissionDecision, type PermissionRequest } from "@contract/model"
import { Store } from "../store/Store"
import { sql } from "../store/sql"

export * as DecisionLog from "./DecisionLog"

/** A final status: everything but `pending`. */
export type Outcome = Exclude<PermissionStatus, "pending">

export interface Decided {
  readonly status: Outcome
  readonly decidedBy: PermissionDecider
  /** The saved approvals that decided an `auto` ask. */
  readonly approvalIDs?: ReadonlyArray<SavedApprovalId>
  readonly feedback?: string
  /** Answered on the connected server (its TUI, another client) rather than in Gatehouse. */
  readonly remotely?: boolean
}

/**
 * The `permission_request` table (project decisions 4 and 5): every ask is written when it is
 * created and again when it ends, with who or what ended it. Process-level: building the layer
 * marks every ask a previous process left `pending` as `interrupted` (its waiter died with that
 * process), so the log never holds a pending row without a live ask behind it.
 */
export interface Interface {
  /** The asks found pending (and marked `interrupted`) when this process started. */
  readonly interruptedAtStart: ReadonlyArray<PermissionRequestId>
  /** Writes a new pending ask; call inside the transaction that registers it. */
  readonly recordAskedUnsafe: (entry: {
    readonly request: PermissionRequest
    readonly projectID: ProjectId
    readonly agent: string | undefined
    readonly now: number
    /** For an ask of a connected agent server: `opencode:<name>` and the ask's id there. */
    readonly connector?: { readonly name: string; readonly remoteID: string }
  }) => void
  /** Ends a pending ask; `false` if it was not pending (it is never decided twice). */
  readonly recordDecidedUnsafe: (id: PermissionRequestId, decided: Decided, now: number) => boolean
  /** Log rows, newest first, optionally of one project, session or status. */
  readonly list: (filter?: {
    readonly projectID?: ProjectId
    readonly sessionID?: SessionId
    readonly status?: PermissionStatus
    readonly limit?: number
  }) => Effect.Effect<ReadonlyArray<PermissionDecision>>
  readonly get: (id: PermissionRequestId) => Effect.Effect<PermissionDecision | undefined>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/permission/DecisionLog") {}

const Strings = Schema.Array(Schema.String)
const Metadata = Schema.Record(Schema.String, Schema.Unknown)
const ApprovalIds = Schema.Array(SavedApprovalId)

const Row = Schema.Struct({
  id: PermissionRequestId,
  session_id: SessionId,
  project_id: ProjectId,
  message_id: Schema.NullOr(Schema.String),
  call_id: Schema.NullOr(Schema.String),
  action: Schema.String,
  resources: Schema.fromJsonString(Strings),
  save: Schema.NullOr(Schema.fromJsonString(Strings)),
  metadata: Schema.NullOr(Schema.fromJsonString(Metadata)),
  agent: Schema.NullOr(Schema.String),
  status: PermissionStatus,
  decided_by: Schema.NullOr(PermissionDecider),
  decided_ref: Schema.NullOr(Schema.fromJsonString(ApprovalIds)),
  feedback: Schema.NullOr(Schema.String),
  created_at: Schema.Number,
  decided_at: Schema.NullOr(Schema.Number),
  connector: Schema.NullOr(Schema.String),
  remote_id: Schema.NullOr(Schema.String),
  answered_remotely: Schema.Int,
})
const columns = sql`id, session_id, project_id, message_id, call_id, action, resources, save, metadata, agent, status,
  decided_by, decided_ref, feedback, created_at, decided_at, connector, remote_id, answered_remotely`

const toDecision = (row: typeof Row.Type): PermissionDecision => ({
  id: row.id,
  sessionID: row.session_id,
  projectID: row.project_id,
  action: row.action,
  resources: row.resources,
  save: row.save,
  metadata: row.metadata,
  source:
    row.message_id !== null && row.call_id !== null
      ? { type: "tool" as const, messageID: row.message_id, callID: row.call_id }
      : null,
  agent: row.agent,
  status: row.status,
  decidedBy: row.decided_by,
  approvalIDs: row.decided_ref,
  feedback: row.feedback,
  createdAt: row.created_at,
  decidedAt: row.decided_at,
  ...(row.connector !== null ? { connector: row.connector } : {}),
  ...(row.remote_id !== null ? { remoteID: row.remote_id } : {}),
  ...(row.answered_remotely === 1 ? { answeredRemotely: true } : {}),
})

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value))

/** Marks every pending row `interrupted` (decided by the system) and returns their ids. */
export function interruptPending(store: Store.Interface, now: number): ReadonlyArray<PermissionRequestId> {
  return store.transaction(() => {
    const ids = store
      .all(Schema.Struct({ id: PermissionRequestId }), sql`SELECT id FROM permission_request WHERE status = 'pending'`)
      .map((row) => row.id)
    if (ids.length > 0)
      store.run(
        sql`UPDATE permission_request SET status = 'interrupted', decided_by = 'system', decided_at = ${now}
            WHERE status = 'pending'`,
      )
    return ids
  })
}

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const store = yield* Store.Service
    const interruptedAtStart = yield* Effect.sync(() => interruptPending(store, Date.now()))
    if (interruptedAtStart.length > 0)
      yield* Effect.logWarning(
        `Marked ${interruptedAtStart.length} permission ask(s) left pending by a previous run as interrupted`,
      )

    const recordAskedUnsafe: Interface["recordAskedUnsafe"] = ({ request, projectID, agent, now, connector }) => {
      store.run(
        sql`INSERT INTO permission_request (id, session_id, project_id, message_id, call_id, action, resources, save,
              metadata, agent, status, created_at, connector, remote_id)
            VALUES (${request.id}, ${request.sessionID}, ${projectID}, ${request.source?.messageID ?? null},
              ${request.source?.callID ?? null}, ${request.action}, ${JSON.stringify(request.resources)},
              ${json(request.save)}, ${json(request.metadata)}, ${agent ?? null}, 'pending', ${now},
              ${connector?.name ?? null}, ${connector?.remoteID ?? null})`,
      )
    }

    const recordDecidedUnsafe: Interface["recordDecidedUnsafe"] = (id, decided, now) =>
      store.run(
        sql`UPDATE permission_request SET status = ${decided.status}, decided_by = ${decided.decidedBy},
              decided_ref = ${decided.approvalIDs?.length ? JSON.stringify(decided.approvalIDs) : null},
              feedback = ${decided.feedback ?? null}, decided_at = ${now},
              answered_remotely = ${decided.remotely ? 1 : 0}
            WHERE id = ${id} AND status = 'pending'`,
      ).changes === 1

    const list: Interface["list"] = (filter = {}) =>
      Effect.sync(() => {
        const conditions = [
          filter.projectID === undefined ? undefined : sql`project_id = ${filter.projectID}`,
          filter.sessionID === undefined ? undefined : sql`session_id = ${filter.sessionID}`,
          filter.status === undefined ? undefined : sql`status = ${filter.status}`,
        ].filter((condition) => condition !== undefined)
        const where = conditions.length === 0 ? sql`` : sql`WHERE ${sql.join(conditions, " AND ")}`
        return store
          .all(
            Row,
            sql`SELECT ${columns} FROM permission_request ${where} ORDER BY created_at DESC, id DESC LIMIT ${filter.limit ?? -1}`,
          )
          .map(toDecision)
      })

    return Service.of({
      interruptedAtStart,
      recordAskedUnsafe,
      recordDecidedUnsafe,
      list,
      get: (id) =>
        Effect.sync(() => {
          const row = store.get(Row, sql`SELECT ${columns} FROM permission_request WHERE id = ${id}`)
          return row && toDecision(row)
        }),
    })
  }),
)
