import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { newId } from "@core/id/Identifier"
import { Location } from "@core/location/Location"
import { SavedApprovals } from "@core/permission/SavedApprovals"
import { Projects } from "@core/session/Projects"
import { makeTempDir } from "../../../support/temp"
import { locationTestLayer, recordEvents } from "./support"

describe("SavedApprovals", () => {
  it.effect("adds one approval per new pattern, skips duplicates and announces each addition", () =>
    Effect.gen(function* () {
      const saved = yield* SavedApprovals.Service
      const { projectId } = yield* Location.Service
      const events = yield* recordEvents
      const first = yield* saved.add({ projectID: projectId, action: "bash", resources: ["git status", "ls *"] })
      const second = yield* saved.add({ projectID: projectId, action: "bash", resources: ["ls *", "pwd", "pwd"] })
      assert.deepStrictEqual(
        first.map((a) => a.resource),
        ["git status", "ls *"],
      )
      assert.deepStrictEqual(
        second.map((a) => a.resource),
        ["pwd"],
      )
      assert.deepStrictEqual(yield* saved.add({ projectID: projectId, action: "bash", resources: [] }), [])
      const all = yield* saved.list({ projectID: projectId })
      assert.deepStrictEqual(
        all.map((a) => a.resource),
        ["git status", "ls *", "pwd"],
      )
      assert.deepInclude(all[0]!, {
        projectID: projectId,
        action: "bash",
        hitCount: 0,
        lastUsedAt: null,
        requestID: null,
      })
      const seen = yield* events.drain
      assert.deepStrictEqual(
        seen.map((event) => (event._tag === "approval.added" ? event.approval.id : event._tag)),
        all.map((a) => a.id),
      )
    }).pipe(Effect.provide(locationTestLayer())),
  )

  it.effect("keeps approvals of different projects and actions apart", () =>
    Effect.gen(function* () {
      const saved = yield* SavedApprovals.Service
      const { projectId } = yield* Location.Service
      const other = yield* (yield* Projects.Service).ensure(makeTempDir())
      yield* saved.add({ projectID: projectId, action: "read", resources: ["*"] })
      yield* saved.add({ projectID: other.id, action: "read", resources: ["*"] })
      yield* saved.add({ projectID: projectId, action: "edit", resources: ["*"] })
      assert.lengthOf(yield* saved.list(), 3)
      assert.deepStrictEqual(
        saved.rulesUnsafe(projectId).map((r) => [r.action, r.resource, r.effect]),
        [
          ["read", "*", "allow"],
          ["edit", "*", "allow"],
        ],
      )
      assert.lengthOf(yield* saved.list({ projectID: other.id }), 1)
    }).pipe(Effect.provide(locationTestLayer())),
  )

  it.effect("edits a pattern, refuses one that would duplicate another, and revokes", () =>
    Effect.gen(function* () {
      const saved = yield* SavedApprovals.Service
      const { projectId } = yield* Location.Service
      const [a, b] = yield* saved.add({ projectID: projectId, action: "read", resources: ["src/a.ts", "src/b.ts"] })
      const events = yield* recordEvents
      const updated = yield* saved.update(a!.id, { resource: "src/*" })
      assert.strictEqual(updated.resource, "src/*")
      assert.strictEqual(updated.id, a!.id)
      const conflict = yield* Effect.flip(saved.update(b!.id, { resource: "src/*" }))
      assert.instanceOf(conflict, SavedApprovals.ConflictError)
      yield* saved.remove(b!.id)
      assert.deepStrictEqual(
        (yield* saved.list()).map((x) => x.resource),
        ["src/*"],
      )
      assert.deepStrictEqual(yield* events.drain, [
        { _tag: "approval.updated", approval: updated },
        { _tag: "approval.removed", id: b!.id, projectID: projectId },
      ])
      assert.instanceOf(yield* Effect.flip(saved.remove(b!.id)), SavedApprovals.NotFoundError)
      assert.instanceOf(yield* Effect.flip(saved.update(b!.id, { resource: "x" })), SavedApprovals.NotFoundError)
    }).pipe(Effect.provide(locationTestLayer())),
  )

  it.effect("refuses approvals for a project that does not exist", () =>
    Effect.gen(function* () {
      const saved = yield* SavedApprovals.Service
      const error = yield* Effect.flip(saved.add({ projectID: newId.project(), action: "read", resources: ["*"] }))
      assert.instanceOf(error, SavedApprovals.ProjectNotFoundError)
      assert.lengthOf(yield* saved.list(), 0)
    }).pipe(Effect.provide(locationTestLayer())),
  )
})
