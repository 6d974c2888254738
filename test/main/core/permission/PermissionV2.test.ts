import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Fiber, Layer, Scope } from "effect"
import type { SessionId } from "@contract/ids"
import { newId } from "@core/id/Identifier"
import { Location } from "@core/location/Location"
import { DecisionLog } from "@core/permission/DecisionLog"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { SavedApprovals } from "@core/permission/SavedApprovals"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import { Store } from "@core/store/Store"
import { sql } from "@core/store/sql"
import { makeTempDir } from "../../../support/temp"
import { agent, locationTestLayer, newSession, permissionTestLayer, recordEvents, rule } from "./support"

const tester = agent("tester", [])
const open = agent("open", [rule("*", "*", "allow")])
const strict = agent("strict", [rule("bash", "*", "deny")])
const layer = (agents = [tester, open, strict]) => permissionTestLayer({ agents })

const read = (sessionID: SessionId, resources: string[], save?: string[]) => ({
  sessionID,
  action: "read",
  resources,
  ...(save ? { save } : {}),
})

/** Forks an assert and waits until its ask is pending. */
const waitingAssert = (input: PermissionV2.AssertInput) =>
  Effect.gen(function* () {
    const permission = yield* PermissionV2.Service
    const events = yield* recordEvents
    const fiber = yield* Effect.forkChild(Effect.exit(permission.assert(input)))
    yield* events.until((event) => event._tag === "permission.v2.asked" && event.request.sessionID === input.sessionID)
    const requests = yield* permission.forSession(input.sessionID)
    return { fiber, request: requests.at(-1)! }
  })

const dieValue = (exit: Exit.Exit<unknown, unknown>) => {
  if (Exit.isSuccess(exit)) return undefined
  const found = Cause.findDefect(exit.cause)
  return found._tag === "Success" ? found.success : undefined
}
const failureValue = (exit: Exit.Exit<unknown, unknown>) => {
  if (Exit.isSuccess(exit)) return undefined
  const found = Cause.findError(exit.cause)
  return found._tag === "Success" ? found.success : undefined
}

describe("PermissionV2", () => {
  it.effect("returns allow and deny without queueing, and queues an ask when no rule matches (G.43)", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const openSession = yield* newSession("open")
      const strictSession = yield* newSession("strict")
      const plain = yield* newSession("tester")
      assert.strictEqual(
        (yield* permission.ask({ sessionID: openSession.id, action: "bash", resources: ["ls"] })).effect,
        "allow",
      )
      assert.strictEqual(
        (yield* permission.ask({ sessionID: strictSession.id, action: "bash", resources: ["ls"] })).effect,
        "deny",
      )
      assert.lengthOf(yield* permission.list(), 0)
      const asked = yield* permission.ask({ sessionID: plain.id, action: "bash", resources: ["ls"], save: ["ls"] })
      assert.strictEqual(asked.effect, "ask")
      assert.match(asked.id, /^per_/)
      assert.deepStrictEqual(yield* permission.list(), [
        { id: asked.id, sessionID: plain.id, action: "bash", resources: ["ls"], save: ["ls"] },
      ])
    }).pipe(Effect.provide(layer())),
  )

  it.effect("lets an explicit agent override the session's, and an agent without rules asks (G.44)", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const session = yield* newSession("strict")
      const input = { sessionID: session.id, action: "bash", resources: ["ls"] }
      assert.strictEqual((yield* permission.ask(input)).effect, "deny")
      assert.strictEqual((yield* permission.ask({ ...input, agent: "open" })).effect, "allow")
      assert.strictEqual((yield* permission.ask({ ...input, agent: "tester" })).effect, "ask")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("passes on allow and fails with BlockedError listing the matching rules on deny (G.45)", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      yield* permission.assert({ sessionID: (yield* newSession("open")).id, action: "bash", resources: ["ls"] })
      const blocked = yield* Effect.flip(
        permission.assert({ sessionID: (yield* newSession("strict")).id, action: "bash", resources: ["ls"] }),
      )
      assert.instanceOf(blocked, PermissionV2.BlockedError)
      assert.deepStrictEqual(blocked.rules, [rule("bash", "*", "deny")])
      assert.strictEqual(blocked.message, "Permission denied: bash")
      assert.lengthOf(yield* permission.list(), 0)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("uses build for a session without an agent and denies everything when no agent resolves (G.47)", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const noAgent = yield* newSession("")
      assert.strictEqual(
        (yield* permission.ask({ sessionID: noAgent.id, action: "bash", resources: ["ls"] })).effect,
        "allow",
      )
      const ghost = yield* newSession("ghost")
      assert.strictEqual(
        (yield* permission.ask({ sessionID: ghost.id, action: "read", resources: ["a"] })).effect,
        "deny",
      )
      const error = yield* Effect.flip(permission.assert({ sessionID: ghost.id, action: "read", resources: ["a"] }))
      assert.instanceOf(error, PermissionV2.BlockedError)
      assert.deepStrictEqual(error.rules, [rule("*", "*", "deny")])
    }).pipe(Effect.provide(layer([agent("build", [rule("*", "*", "allow")])]))),
  )

  it.effect("denies a session with no agent when even build is missing (G.47)", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const noAgent = yield* newSession("")
      assert.strictEqual(
        (yield* permission.ask({ sessionID: noAgent.id, action: "read", resources: ["a"] })).effect,
        "deny",
      )
    }).pipe(Effect.provide(layer([tester]))),
  )

  it.effect("fails with the session's NotFoundError for unknown sessions and sessions of other projects", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const missing = yield* Effect.flip(
        permission.ask({ sessionID: newId.session(), action: "read", resources: ["a"] }),
      )
      assert.instanceOf(missing, Sessions.NotFoundError)
      const projects = yield* Projects.Service
      const sessions = yield* Sessions.Service
      const other = yield* projects.ensure(makeTempDir())
      const foreign = yield* sessions.create({ projectId: other.id, agent: "open", title: "t", source: "runner" })
      const error = yield* Effect.flip(permission.assert({ sessionID: foreign.id, action: "read", resources: ["a"] }))
      assert.instanceOf(error, Sessions.NotFoundError)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("lists a pending request in list, forSession and get; once resolves it and saves nothing (G.51)", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const session = yield* newSession()
      const other = yield* newSession()
      yield* permission.ask(read(other.id, ["b"]))
      const events = yield* recordEvents
      const { fiber, request } = yield* waitingAssert(read(session.id, ["a"], ["*"]))
      assert.deepStrictEqual(yield* permission.get(request.id), request)
      assert.deepStrictEqual(yield* permission.forSession(session.id), [request])
      assert.lengthOf(yield* permission.list(), 2)
      yield* permission.reply({ requestID: request.id, reply: "once" })
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(fiber)))
      assert.isUndefined(yield* permission.get(request.id))
      assert.lengthOf(yield* permission.list(), 1)
      const saved = yield* SavedApprovals.Service
      assert.lengthOf(yield* saved.list(), 0)
      const seen = yield* events.drain
      assert.deepStrictEqual(
        seen.filter((event) => event._tag.startsWith("permission.")),
        [
          { _tag: "permission.v2.asked", request },
          { _tag: "permission.v2.replied", sessionID: session.id, requestID: request.id, reply: "once" },
        ],
      )
      const log = yield* DecisionLog.Service
      const row = (yield* log.get(request.id))!
      assert.strictEqual(row.status, "once")
      assert.strictEqual(row.decidedBy, "person")
      assert.isNotNull(row.decidedAt)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("makes assert die with DeclinedError on a reject without message, leaving nothing pending (G.52)", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const session = yield* newSession()
      const { fiber, request } = yield* waitingAssert(read(session.id, ["a"]))
      yield* permission.reply({ requestID: request.id, reply: "reject" })
      const exit = yield* Fiber.join(fiber)
      assert.instanceOf(dieValue(exit), PermissionV2.DeclinedError)
      assert.lengthOf(yield* permission.list(), 0)
      const log = yield* DecisionLog.Service
      assert.strictEqual((yield* log.get(request.id))!.status, "reject")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("fails assert with a typed CorrectedError carrying the feedback on a reject with message", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const session = yield* newSession()
      const { fiber, request } = yield* waitingAssert(read(session.id, ["a"]))
      yield* permission.reply({ requestID: request.id, reply: "reject", message: "use the test fixture instead" })
      const error = failureValue(yield* Fiber.join(fiber))
      assert.instanceOf(error, PermissionV2.CorrectedError)
      assert.strictEqual((error as PermissionV2.CorrectedError).feedback, "use the test fixture instead")
      const row = (yield* (yield* DecisionLog.Service).get(request.id))!
      assert.strictEqual(row.status, "corrected")
      assert.strictEqual(row.feedback, "use the test fixture instead")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("cascades a reject to every other pending ask of the same session and to no other session", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const session = yield* newSession()
      const bystander = yield* newSession()
      const first = yield* waitingAssert(read(session.id, ["a"]))
      const second = yield* waitingAssert(read(session.id, ["b"]))
      const third = yield* permission.ask(read(session.id, ["c"]))
      const other = yield* waitingAssert(read(bystander.id, ["a"]))
      const events = yield* recordEvents
      yield* permission.reply({ requestID: first.request.id, reply: "reject", message: "no" })
      assert.instanceOf(failureValue(yield* Fiber.join(first.fiber)), PermissionV2.CorrectedError)
      assert.instanceOf(dieValue(yield* Fiber.join(second.fiber)), PermissionV2.DeclinedError)
      assert.deepStrictEqual(yield* permission.list(), [other.request])
      const seen = yield* events.drain
      assert.deepStrictEqual(
        seen.map((event) => (event._tag === "permission.v2.replied" ? [event.requestID, event.reply] : event._tag)),
        [
          [first.request.id, "reject"],
          [second.request.id, "reject"],
          [third.id, "reject"],
        ],
      )
      const log = yield* DecisionLog.Service
      assert.strictEqual((yield* log.get(second.request.id))!.status, "cascade")
      assert.strictEqual((yield* log.get(third.id))!.status, "cascade")
      assert.strictEqual((yield* log.get(other.request.id))!.status, "pending")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("saves an always answer's patterns once and passes later matching requests without asking (G.53)", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const saved = yield* SavedApprovals.Service
      const location = yield* Location.Service
      const session = yield* newSession()
      const { fiber, request } = yield* waitingAssert(read(session.id, ["src/index.ts"], ["src/*", "src/*"]))
      yield* permission.reply({ requestID: request.id, reply: "always" })
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(fiber)))
      const rows = yield* saved.list({ projectID: location.projectId })
      assert.strictEqual(rows.length, 1)
      assert.deepInclude(rows[0]!, {
        projectID: location.projectId,
        action: "read",
        resource: "src/*",
        requestID: request.id,
        hitCount: 0,
      })
      assert.match(rows[0]!.id, /^psv_/)
      assert.isNull(rows[0]!.lastUsedAt)

      yield* permission.assert(read(session.id, ["src/next.ts"]))
      const used = (yield* saved.list())[0]!
      assert.strictEqual(used.hitCount, 1)
      assert.isNotNull(used.lastUsedAt)
      assert.strictEqual((yield* permission.ask(read(session.id, ["lib/a.ts"]))).effect, "ask")
      assert.strictEqual((yield* permission.ask({ ...read(session.id, ["src/a.ts"]), action: "edit" })).effect, "ask")

      // A second always with the same pattern does not duplicate it.
      const again = yield* permission.ask(read(session.id, ["docs/a.md"], ["src/*"]))
      yield* permission.reply({ requestID: again.id, reply: "always" })
      assert.lengthOf(yield* saved.list(), 1)

      yield* saved.remove(used.id)
      assert.strictEqual((yield* permission.ask(read(session.id, ["src/next.ts"]))).effect, "ask")
    }).pipe(Effect.provide(layer())),
  )

  it.effect(
    "counts a hit for the saved approval that decides each resource of an allowed call, and none for an ask",
    () =>
      Effect.gen(function* () {
        const permission = yield* PermissionV2.Service
        const saved = yield* SavedApprovals.Service
        const location = yield* Location.Service
        const session = yield* newSession()
        yield* saved.add({ projectID: location.projectId, action: "read", resources: ["*", "src/*"] })
        yield* saved.add({ projectID: location.projectId, action: "edit", resources: ["src/*"] })
        const [broad, narrow, edit] = yield* saved.list()
        yield* permission.assert(read(session.id, ["src/a.ts"]))
        yield* permission.assert(read(session.id, ["lib/a.ts", "src/b.ts"]))
        assert.strictEqual(
          (yield* permission.ask({ ...read(session.id, ["src/a.ts", "lib/b.ts"]), action: "edit" })).effect,
          "ask",
        )
        assert.strictEqual((yield* saved.list()).find((approval) => approval.id === edit!.id)!.hitCount, 0)
        const counts = new Map((yield* saved.list()).map((approval) => [approval.id, approval.hitCount]))
        assert.strictEqual(counts.get(narrow!.id), 2)
        assert.strictEqual(counts.get(broad!.id), 1)
      }).pipe(Effect.provide(layer())),
  )

  it.effect("acts like once for an always without save patterns", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const session = yield* newSession()
      const first = yield* permission.ask(read(session.id, ["a"]))
      const second = yield* permission.ask(read(session.id, ["a"]))
      yield* permission.reply({ requestID: first.id, reply: "always" })
      assert.lengthOf(yield* (yield* SavedApprovals.Service).list(), 0)
      assert.deepStrictEqual(
        (yield* permission.list()).map((request) => request.id),
        [second.id],
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("auto-approves other pending asks of the project that an always now fully allows", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const session = yield* newSession()
      const other = yield* newSession()
      const answered = yield* permission.ask(read(session.id, ["src/a.ts"], ["src/*"]))
      const covered = yield* waitingAssert(read(other.id, ["src/b.ts", "src/c.ts"]))
      const partly = yield* permission.ask(read(other.id, ["src/b.ts", "lib/c.ts"]))
      const otherAction = yield* permission.ask({ ...read(session.id, ["src/b.ts"]), action: "edit" })
      const events = yield* recordEvents
      yield* permission.reply({ requestID: answered.id, reply: "always" })
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(covered.fiber)))
      assert.deepStrictEqual(
        (yield* permission.list()).map((request) => request.id),
        [partly.id, otherAction.id],
      )
      const replies = (yield* events.drain).flatMap((event) =>
        event._tag === "permission.v2.replied" ? [[event.requestID, event.reply]] : [],
      )
      assert.deepStrictEqual(replies, [
        [answered.id, "always"],
        [covered.request.id, "always"],
      ])
      const log = yield* DecisionLog.Service
      const auto = (yield* log.get(covered.request.id))!
      const approval = (yield* (yield* SavedApprovals.Service).list())[0]!
      assert.deepInclude(auto, { status: "auto", decidedBy: "approval", approvalIDs: [approval.id] })
      assert.strictEqual(approval.hitCount, 1)
      assert.strictEqual((yield* log.get(answered.id))!.status, "always")
    }).pipe(Effect.provide(layer())),
  )

  it.effect("skips auto-approval for a request whose session is gone or whose agent now denies it (G.54)", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const store = yield* Store.Service
      const session = yield* newSession()
      const doomed = yield* newSession()
      const switched = yield* newSession()
      const answered = yield* permission.ask(read(session.id, ["a"], ["*"]))
      const orphan = yield* permission.ask(read(doomed.id, ["b"]))
      const denied = yield* permission.ask(read(switched.id, ["c"]))
      const approved = yield* permission.ask(read(session.id, ["d"]))
      store.run(sql`DELETE FROM session WHERE id = ${doomed.id}`)
      store.run(sql`UPDATE session SET agent = 'denier' WHERE id = ${switched.id}`)
      yield* permission.reply({ requestID: answered.id, reply: "always" })
      assert.deepStrictEqual(
        (yield* permission.list()).map((request) => request.id),
        [orphan.id, denied.id],
      )
      assert.strictEqual((yield* (yield* DecisionLog.Service).get(approved.id))!.status, "auto")
    }).pipe(Effect.provide(layer([tester, agent("denier", [rule("read", "*", "deny")])]))),
  )

  it.effect("fails reply with NotFoundError for unknown or already answered requests", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const session = yield* newSession()
      const unknown = newId.permissionRequest()
      const error = yield* Effect.flip(permission.reply({ requestID: unknown, reply: "once" }))
      assert.instanceOf(error, PermissionV2.NotFoundError)
      assert.strictEqual(error.requestID, unknown)
      const asked = yield* permission.ask(read(session.id, ["a"]))
      yield* permission.reply({ requestID: asked.id, reply: "once" })
      assert.instanceOf(
        yield* Effect.flip(permission.reply({ requestID: asked.id, reply: "reject" })),
        PermissionV2.NotFoundError,
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("withdraws the ask when the waiting fiber is interrupted, without a replied event", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const session = yield* newSession()
      const { fiber, request } = yield* waitingAssert(read(session.id, ["a"]))
      const events = yield* recordEvents
      yield* Fiber.interrupt(fiber)
      assert.lengthOf(yield* permission.list(), 0)
      assert.deepStrictEqual(yield* events.drain, [
        { _tag: "permission.v2.withdrawn", sessionID: session.id, requestID: request.id },
      ])
      const row = (yield* (yield* DecisionLog.Service).get(request.id))!
      assert.deepInclude(row, { status: "interrupted", decidedBy: "system" })
      assert.instanceOf(
        yield* Effect.flip(permission.reply({ requestID: request.id, reply: "once" })),
        PermissionV2.NotFoundError,
      )
    }).pipe(Effect.provide(layer())),
  )

  it.effect("treats a reused pending id as a defect", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const session = yield* newSession()
      const id = newId.permissionRequest()
      yield* permission.ask({ ...read(session.id, ["a"]), id })
      const exit = yield* Effect.exit(permission.ask({ ...read(session.id, ["b"]), id }))
      assert.match(String(dieValue(exit)), /Duplicate pending permission ID: per_/)
      assert.lengthOf(yield* permission.list(), 1)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("declines every waiter and records the asks as interrupted when the Location is torn down", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const permission = Context.get(yield* Layer.buildWithScope(PermissionV2.layer, scope), PermissionV2.Service)
      const session = yield* newSession()
      const waiter = yield* waitingAssert(read(session.id, ["a"])).pipe(
        Effect.provideService(PermissionV2.Service, permission),
      )
      const queued = yield* permission.ask(read(session.id, ["b"]))
      const events = yield* recordEvents
      yield* Scope.close(scope, Exit.void)
      assert.instanceOf(dieValue(yield* Fiber.join(waiter.fiber)), PermissionV2.DeclinedError)
      const log = yield* DecisionLog.Service
      for (const id of [waiter.request.id, queued.id])
        assert.deepInclude((yield* log.get(id))!, { status: "interrupted", decidedBy: "system" })
      assert.deepStrictEqual(
        (yield* events.drain).map((event) => event._tag),
        ["permission.v2.withdrawn", "permission.v2.withdrawn"],
      )
      // A closed service denies new asks, and assert dies.
      assert.strictEqual((yield* permission.ask(read(session.id, ["a"]))).effect, "deny")
      assert.instanceOf(
        dieValue(yield* Effect.exit(permission.assert(read(session.id, ["a"])))),
        PermissionV2.DeclinedError,
      )
    }).pipe(Effect.provide(locationTestLayer({ config: { agents: { tester: [] } } }))),
  )
})
