import { Context, Effect, Layer, Schema } from "effect"
import { PermissionRequestId, ProjectId, SavedApprovalId } from "@contract/ids"
import type { PermissionRule, SavedApproval } from "@contract/model"
import { EventBus } from "../events/EventBus"
import { newId } from "../id/Identifier"
import { Store } from "../store/Store"
import { sql } from "../store/sql"
import { commit, type Outbox } from "./outbox"

export * as SavedApprovals from "./SavedApprovals"

/** A saved approval as the evaluator sees it: an `allow` that remembers which row it is. */
export interface SavedRule extends PermissionRule {
  readonly effect: "allow"
  readonly approvalID: SavedApprovalId
}

export interface AddInput {
  readonly projectID: ProjectId
  readonly action: string
  /** One approval per pattern; patterns already saved for the project and action are skipped. */
  readonly resources: ReadonlyArray<string>
  /** The ask whose `always` answer saves them. */
  readonly requestID?: PermissionRequestId
}

export class NotFoundError extends Schema.TaggedError<NotFoundError>()("SavedApprovals.NotFoundError", {
  id: Schema.String,
}) {
  override get message() {
    return `Saved approval not found: ${this.id}`
  }
}

/** An edit would make the approval a duplicate of another one of the same project and action. */
export class ConflictError extends Schema.TaggedError<ConflictError>()("SavedApprovals.ConflictError", {
  projectID: Schema.String,
  action: Schema.String,
  resource: Schema.String,
}) {
  override get message() {
    return `The project already has a saved approval for ${this.action} ${this.resource}`
  }
}

export class ProjectNotFoundError extends Schema.TaggedError<ProjectNotFoundError>()(
  "SavedApprovals.ProjectNotFoundError",
  { projectID: Schema.String },
) {
  override get message() {
    return `Project not found: ${this.projectID}`
  }
}

/**
 * The `permission` table (SPEC-CORE D.8): project-wide allows, one database for every project.
 * Every change publishes `approval.added`, `approval.updated` or `approval.removed`.
 */
export interface Interface {
  /** Saved approvals, oldest first, of one project or of all. */
  readonly list: (filter?: { readonly projectID?: ProjectId }) => Effect.Effect<ReadonlyArray<SavedApproval>>
  readonly listUnsafe: (filter?: { readonly projectID?: ProjectId }) => ReadonlyArray<SavedApproval>
  /** Saves patterns by hand (or for an `always`); returns the approvals that were new. */
  readonly add: (input: AddInput) => Effect.Effect<ReadonlyArray<SavedApproval>, ProjectNotFoundError>
  /** Changes an approval's resource pattern. */
  readonly update: (
    id: SavedApprovalId,
    input: { readonly resource: string },
  ) => Effect.Effect<SavedApproval, NotFoundError | ConflictError>
  /** Revokes an approval: from now on it allows nothing. */
  readonly remove: (id: SavedApprovalId) => Effect.Effect<void, NotFoundError>
  /** One project's approvals as `allow` rules, oldest first (so the newest match wins). */
  readonly rulesUnsafe: (projectID: ProjectId) => ReadonlyArray<SavedRule>
  /** {@link add} inside the caller's transaction; its events go to the caller's outbox. */
  readonly addUnsafe: (input: AddInput, now: number, outbox: Outbox) => ReadonlyArray<SavedApproval>
  /** Counts one decided ask for each approval (hit count, last used) inside the caller's transaction. */
  readonly recordHitsUnsafe: (ids: ReadonlyArray<SavedApprovalId>, now: number, outbox: Outbox) => void
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/permission/SavedApprovals") {}

const Row = Schema.Struct({
  id: SavedApprovalId,
  project_id: ProjectId,
  action: Schema.String,
  resource: Schema.String,
  request_id: Schema.NullOr(PermissionRequestId),
  hit_count: Schema.Int,
  last_used_at: Schema.NullOr(Schema.Number),
  created_at: Schema.Number,
})
const columns = sql`id, project_id, action, resource, request_id, hit_count, last_used_at, created_at`
const toApproval = (row: typeof Row.Type): SavedApproval => ({
  id: row.id,
  projectID: row.project_id,
  action: row.action,
  resource: row.resource,
  createdAt: row.created_at,
  requestID: row.request_id,
  hitCount: row.hit_count,
  lastUsedAt: row.last_used_at,
})

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const store = yield* Store.Service
    const bus = yield* EventBus.Service

    const byId = (id: string) => {
      const row = store.get(Row, sql`SELECT ${columns} FROM permission WHERE id = ${id}`)
      return row && toApproval(row)
    }

    const listUnsafe: Interface["listUnsafe"] = (filter) =>
      (filter?.projectID === undefined
        ? store.all(Row, sql`SELECT ${columns} FROM permission ORDER BY id`)
        : store.all(Row, sql`SELECT ${columns} FROM permission WHERE project_id = ${filter.projectID} ORDER BY id`)
      ).map(toApproval)

    const rulesUnsafe: Interface["rulesUnsafe"] = (projectID) =>
      store
        .all(Row, sql`SELECT ${columns} FROM permission WHERE project_id = ${projectID} ORDER BY id`)
        .map((row) => ({ action: row.action, resource: row.resource, effect: "allow", approvalID: row.id }))

    const addUnsafe: Interface["addUnsafe"] = (input, now, outbox) => {
      const added: SavedApproval[] = []
      for (const resource of input.resources) {
        const id = newId.savedApproval()
        const result = store.run(
          sql`INSERT INTO permission (id, project_id, action, resource, request_id, hit_count, last_used_at, created_at, updated_at)
              VALUES (${id}, ${input.projectID}, ${input.action}, ${resource}, ${input.requestID ?? null}, 0, NULL, ${now}, ${now})
              ON CONFLICT (project_id, action, resource) DO NOTHING`,
        )
        if (result.changes === 0) continue
        const approval = byId(id)!
        added.push(approval)
        outbox.push({ _tag: "approval.added", approval })
      }
      return added
    }

    const recordHitsUnsafe: Interface["recordHitsUnsafe"] = (ids, now, outbox) => {
      for (const id of new Set(ids)) {
        store.run(
          sql`UPDATE permission SET hit_count = hit_count + 1, last_used_at = ${now}, updated_at = ${now} WHERE id = ${id}`,
        )
        const approval = byId(id)
        if (approval) outbox.push({ _tag: "approval.updated", approval })
      }
    }

    const add = Effect.fn("SavedApprovals.add")(function* (input: AddInput) {
      const added = yield* Effect.sync(() =>
        commit(store, bus, (outbox) => {
          const project = store.get(
            Schema.Struct({ id: Schema.String }),
            sql`SELECT id FROM project WHERE id = ${input.projectID}`,
          )
          return project ? addUnsafe(input, Date.now(), outbox) : undefined
        }),
      )
      if (added === undefined) return yield* new ProjectNotFoundError({ projectID: input.projectID })
      return added
    })

    const update = Effect.fn("SavedApprovals.update")(function* (id: SavedApprovalId, input: { resource: string }) {
      const result = yield* Effect.sync(() =>
        commit(store, bus, (outbox) => {
          const current = byId(id)
          if (!current) return new NotFoundError({ id })
          if (current.resource === input.resource) return current
          const clash = store.get(
            Schema.Struct({ id: Schema.String }),
            sql`SELECT id FROM permission WHERE project_id = ${current.projectID} AND action = ${current.action} AND resource = ${input.resource}`,
          )
          if (clash)
            return new ConflictError({ projectID: current.projectID, action: current.action, resource: input.resource })
          store.run(
            sql`UPDATE permission SET resource = ${input.resource}, updated_at = ${Date.now()} WHERE id = ${id}`,
          )
          const approval = byId(id)!
          outbox.push({ _tag: "approval.updated", approval })
          return approval
        }),
      )
      if (result instanceof NotFoundError || result instanceof ConflictError) return yield* result
      return result
    })

    const remove = Effect.fn("SavedApprovals.remove")(function* (id: SavedApprovalId) {
      const removed = yield* Effect.sync(() =>
        commit(store, bus, (outbox) => {
          const current = byId(id)
          if (!current) return false
          store.run(sql`DELETE FROM permission WHERE id = ${id}`)
          outbox.push({ _tag: "approval.removed", id, projectID: current.projectID })
          return true
        }),
      )
      if (!removed) return yield* new NotFoundError({ id })
    })

    return Service.of({
      list: (filter) => Effect.sync(() => listUnsafe(filter)),
      listUnsafe,
      add,
      update,
      remove,
      rulesUnsafe,
      addUnsafe,
      recordHitsUnsafe,
    })
  }),
)
