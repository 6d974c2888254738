import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ApprovalEntry, AgentInfo, SavedApproval } from "@contract/model"
import type { Snapshot } from "@contract/methods"
import { Locations } from "@core/location/Locations"
import { SavedApprovals } from "@core/permission/SavedApprovals"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import { recordEvents } from "../core/permission/support"
import { makeTempDir } from "../../support/temp"
import { call, contractTestLayer, failure, success } from "./contract"

// The approvals editor's methods through the contract's dispatcher, against the real core.

const config = {
  agents: {
    // Appended to the built-in build agent: asks for bash, and denies force pushes outright.
    build: [
      { action: "bash", resource: "*", effect: "ask" as const },
      { action: "bash", resource: "git push --force*", effect: "deny" as const },
    ],
  },
}

const project = Effect.gen(function* () {
  const projects = yield* Projects.Service
  return yield* projects.ensure(makeTempDir())
})

const unknownProject = "prj_00000000000000ffabcdefABCDEF"
const unknownApproval = "psv_00000000000000ffabcdefABCDEF"

describe("approvals handlers", () => {
  it.effect("adds an approval by hand, announces it and puts it in the snapshot", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const events = yield* recordEvents
        const { id: projectID } = yield* project
        const approval = success<SavedApproval>(
          yield* call("approvals.add", { projectID, action: "bash", resource: "git status *" }),
        )
        assert.strictEqual(approval.resource, "git status *")
        assert.strictEqual(approval.requestID, null)
        assert.strictEqual(approval.hitCount, 0)
        yield* events.until((event) => event._tag === "approval.added")
        const snapshot = success<Snapshot>(yield* call("app.snapshot"))
        assert.deepStrictEqual(
          snapshot.approvals.map((saved) => saved.id),
          [approval.id],
        )
      }),
    ).pipe(Effect.provide(contractTestLayer({ config }))),
  )

  it.effect("refuses empty, padded, invisible-character and overlong patterns and wildcard actions, as data", () =>
    Effect.gen(function* () {
      const { id: projectID } = yield* project
      const refused = [
        { action: "bash", resource: "" },
        { action: "bash", resource: "   " },
        { action: "bash", resource: " ls" },
        { action: "bash", resource: "ls\nrm -rf /" },
        { action: "bash", resource: "ls \u202e" + "fdp" },
        { action: "bash", resource: "x".repeat(2001) },
        { action: "*", resource: "ls" },
        { action: "bash *", resource: "ls" },
        { action: "", resource: "ls" },
      ]
      for (const input of refused) {
        const error = failure(yield* call("approvals.add", { projectID, ...input }))
        assert.strictEqual(error._tag, "Approvals.InvalidPatternError", JSON.stringify(input))
        assert.strictEqual(error.field, input.action === "bash" ? "resource" : "action")
        assert.isAbove(String(error.reason).length, 10)
      }
      const saved = yield* SavedApprovals.Service
      assert.lengthOf(yield* saved.list(), 0)
    }).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("names the invisible character it refuses", () =>
    Effect.gen(function* () {
      const { id: projectID } = yield* project
      const error = failure(yield* call("approvals.add", { projectID, action: "read", resource: "a\u202eb" }))
      assert.include(String(error.reason), "U+202E")
    }).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("answers a duplicate with a conflict and an unknown project with not found", () =>
    Effect.gen(function* () {
      const { id: projectID } = yield* project
      success(yield* call("approvals.add", { projectID, action: "read", resource: "src/*" }))
      const duplicate = failure(yield* call("approvals.add", { projectID, action: "read", resource: "src/*" }))
      assert.strictEqual(duplicate._tag, "SavedApprovals.ConflictError")
      const missing = failure(
        yield* call("approvals.add", { projectID: unknownProject, action: "read", resource: "src/*" }),
      )
      assert.strictEqual(missing._tag, "SavedApprovals.ProjectNotFoundError")
    }).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("edits the resource pattern, refusing invalid patterns, clashes and unknown ids", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const events = yield* recordEvents
        const { id: projectID } = yield* project
        const a = success<SavedApproval>(yield* call("approvals.add", { projectID, action: "edit", resource: "a/*" }))
        success(yield* call("approvals.add", { projectID, action: "edit", resource: "b/*" }))
        const edited = success<SavedApproval>(yield* call("approvals.update", { id: a.id, resource: "src/**" }))
        assert.strictEqual(edited.id, a.id)
        assert.strictEqual(edited.resource, "src/**")
        yield* events.until((event) => event._tag === "approval.updated" && event.approval.resource === "src/**")
        assert.strictEqual(
          failure(yield* call("approvals.update", { id: a.id, resource: "b/*" }))._tag,
          "SavedApprovals.ConflictError",
        )
        assert.strictEqual(
          failure(yield* call("approvals.update", { id: a.id, resource: "" }))._tag,
          "Approvals.InvalidPatternError",
        )
        assert.strictEqual(
          failure(yield* call("approvals.update", { id: unknownApproval, resource: "x" }))._tag,
          "SavedApprovals.NotFoundError",
        )
        const saved = yield* SavedApprovals.Service
        assert.deepStrictEqual((yield* saved.list()).map((approval) => approval.resource).sort(), ["b/*", "src/**"])
      }),
    ).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("revokes an approval once, announcing it; a second revoke is not found", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const events = yield* recordEvents
        const { id: projectID } = yield* project
        const approval = success<SavedApproval>(
          yield* call("approvals.add", { projectID, action: "read", resource: "*" }),
        )
        assert.isNull(success(yield* call("approvals.remove", { id: approval.id })))
        yield* events.until((event) => event._tag === "approval.removed" && event.id === approval.id)
        assert.strictEqual(
          failure(yield* call("approvals.remove", { id: approval.id }))._tag,
          "SavedApprovals.NotFoundError",
        )
      }),
    ).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("lists an approval saved by an always answer with the ask and session it came from", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const directory = makeTempDir()
        const projects = yield* Projects.Service
        const sessions = yield* Sessions.Service
        const locations = yield* Locations.Service
        const { id: projectID } = yield* projects.ensure(directory)
        const session = yield* sessions.create({ projectId: projectID, agent: "build", title: "t", source: "runner" })
        const location = yield* locations.acquire(projectID)
        const asked = yield* location.permission.ask({
          sessionID: session.id,
          action: "bash",
          resources: ["git status --short"],
          save: ["git status *"],
        })
        assert.strictEqual(asked.effect, "ask")
        success(yield* call("permission.reply", { requestID: asked.id, reply: "always" }))
        const entries = success<ReadonlyArray<ApprovalEntry>>(yield* call("approvals.list", { projectID }))
        assert.lengthOf(entries, 1)
        const [entry] = entries
        assert.strictEqual(entry!.approval.resource, "git status *")
        assert.deepStrictEqual(entry!.origin, {
          requestID: asked.id,
          sessionID: session.id,
          agent: "build",
          resources: ["git status --short"],
          askedAt: entry!.origin!.askedAt,
        })
        // Only the read-only explore agent denies bash outright; build asks, so the approval works there.
        assert.deepStrictEqual(
          entry!.shadowedBy.map((shadow) => shadow.agent),
          ["explore"],
        )
      }),
    ).pipe(Effect.provide(contractTestLayer({ config }))),
  )

  it.effect("flags an approval that a configured deny makes ineffective, per agent, with the rule", () =>
    Effect.gen(function* () {
      const { id: projectID } = yield* project
      const push = success<SavedApproval>(
        yield* call("approvals.add", { projectID, action: "bash", resource: "git push --force origin" }),
      )
      const edit = success<SavedApproval>(
        yield* call("approvals.add", { projectID, action: "edit", resource: "src/*" }),
      )
      const entries = success<ReadonlyArray<ApprovalEntry>>(yield* call("approvals.list", { ids: [push.id, edit.id] }))
      const byId = new Map(entries.map((entry) => [entry.approval.id, entry]))
      const pushShadows = byId.get(push.id)!.shadowedBy
      const buildShadow = pushShadows.find((shadow) => shadow.agent === "build")
      assert.deepStrictEqual(buildShadow?.rule, { action: "bash", resource: "git push --force*", effect: "deny" })
      assert.deepStrictEqual(
        byId.get(edit.id)!.shadowedBy.map((shadow) => shadow.agent),
        ["plan", "explore"],
      )
    }).pipe(Effect.provide(contractTestLayer({ config }))),
  )

  it.effect("lists only the approvals asked for by id", () =>
    Effect.gen(function* () {
      const { id: projectID } = yield* project
      const a = success<SavedApproval>(yield* call("approvals.add", { projectID, action: "read", resource: "a" }))
      success(yield* call("approvals.add", { projectID, action: "read", resource: "b" }))
      const entries = success<ReadonlyArray<ApprovalEntry>>(yield* call("approvals.list", { ids: [a.id] }))
      assert.deepStrictEqual(
        entries.map((entry) => entry.approval.id),
        [a.id],
      )
    }).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("exports approvals as a JSON document naming their projects", () =>
    Effect.gen(function* () {
      const first = yield* project
      const second = yield* project
      success(yield* call("approvals.add", { projectID: first.id, action: "read", resource: "*.md" }))
      success(yield* call("approvals.add", { projectID: second.id, action: "bash", resource: "ls *" }))
      const all = JSON.parse(success<string>(yield* call("approvals.export", {})))
      assert.strictEqual(all.format, "gatehouse.approvals")
      assert.strictEqual(all.version, 1)
      assert.deepStrictEqual(
        all.approvals.map((approval: { project: { directory: string }; action: string; resource: string }) => [
          approval.project.directory,
          approval.action,
          approval.resource,
        ]),
        [
          [first.directory, "read", "*.md"],
          [second.directory, "bash", "ls *"],
        ],
      )
      const one = JSON.parse(success<string>(yield* call("approvals.export", { projectID: second.id })))
      assert.lengthOf(one.approvals, 1)
      assert.match(one.approvals[0].createdAt, /^\d{4}-\d\d-\d\dT/)
    }).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("lists every agent with its configured rules, hidden helpers marked", () =>
    Effect.gen(function* () {
      const agents = success<ReadonlyArray<AgentInfo>>(yield* call("agents.list"))
      const build = agents.find((agent) => agent.name === "build")!
      assert.deepStrictEqual(build.rules.at(-1), { action: "bash", resource: "git push --force*", effect: "deny" })
      assert.isTrue(agents.find((agent) => agent.name === "title")!.hidden)
      assert.isFalse(build.hidden)
    }).pipe(Effect.provide(contractTestLayer({ config }))),
  )

  it.effect("answers an undecodable payload with an invalid request error, never a throw", () =>
    Effect.gen(function* () {
      const error = failure(yield* call("approvals.update", { id: "not-an-id", resource: "x" }))
      assert.strictEqual(error._tag, "Contract.InvalidRequestError")
    }).pipe(Effect.provide(contractTestLayer())),
  )
})
