import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber } from "effect"
import type { AppEvent } from "@contract/events"
import type { PermissionRequestId, QuestionId, SessionId } from "@contract/ids"
import type { Snapshot } from "@contract/methods"
import { EventBus } from "@core/events/EventBus"
import { timestampOf } from "@core/id/Identifier"
import { Locations } from "@core/location/Locations"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Projects } from "@core/session/Projects"
import { Questions } from "@core/session/Questions"
import { Sessions } from "@core/session/Sessions"
import { ToolCalls } from "@core/session/ToolCalls"
import { makeTempDir } from "../../support/temp"
import { call, contractTestLayer, failure, success } from "./contract"
import { recordEvents } from "../core/permission/support"

// The inbox methods of the contract, through the same dispatcher both transports use, against the
// real core: real Locations with their PermissionV2, real Questions and ToolCalls, real SQLite.

const askEverything = {
  agents: {
    build: [{ action: "*", resource: "*", effect: "ask" as const }],
    plan: [{ action: "*", resource: "*", effect: "ask" as const }],
  },
}

const testLayer = () => {
  const root = makeTempDir()
  for (const name of ["a", "b"]) mkdirSync(join(root, name))
  return { root, layer: contractTestLayer({ config: askEverything }) }
}

/** A project directory under `root`, its Location (alive for the test) and a session in it. */
const openSession = (root: string, name: string, agent = "build") =>
  Effect.gen(function* () {
    const projects = yield* Projects.Service
    const sessions = yield* Sessions.Service
    const locations = yield* Locations.Service
    const project = yield* projects.ensure(join(root, name))
    const location = yield* locations.acquire(project.id)
    const session = yield* sessions.create({ projectId: project.id, agent, title: name, source: "runner" })
    return { project, location, session }
  })

/** Asks in `location` and keeps the asking call waiting (as a tool does); resolves once it is pending. */
const waitingAsk = (
  location: Locations.Handle,
  input: Omit<PermissionV2.AssertInput, "id">,
  events: { until: (predicate: (event: AppEvent) => boolean) => Effect.Effect<void> },
) =>
  Effect.gen(function* () {
    const before = new Set(location.permission.listUnsafe().map((request) => request.id))
    const fiber = yield* Effect.forkScoped(Effect.exit(location.permission.assert(input)))
    yield* events.until(
      (event) =>
        event._tag === "permission.v2.asked" &&
        !before.has(event.request.id) &&
        event.request.sessionID === input.sessionID,
    )
    const request = location.permission.listUnsafe().find((candidate) => !before.has(candidate.id))!
    return { fiber, id: request.id }
  })

const bash = (sessionID: SessionId, command: string) => ({
  sessionID,
  action: "bash",
  resources: [command],
  save: [command],
  metadata: { workdir: "." },
})

const pendingIds = (snapshot: Snapshot) => snapshot.asks.map((ask) => ask.request.id)

describe("inbox handlers", () => {
  it.effect(
    "lists every pending ask with its session's agent, project, time and running tool call in the snapshot",
    () => {
      const { root, layer } = testLayer()
      return Effect.gen(function* () {
        const events = yield* recordEvents
        const toolCalls = yield* ToolCalls.Service
        const a = yield* openSession(root, "a", "plan")
        const b = yield* openSession(root, "b")
        yield* toolCalls.start({
          sessionID: a.session.id,
          messageID: "msg_1",
          callID: "call_1",
          tool: "bash",
          input: { command: "rm -rf build" },
        })
        const first = yield* waitingAsk(
          a.location,
          { ...bash(a.session.id, "rm -rf build"), source: { type: "tool", messageID: "msg_1", callID: "call_1" } },
          events,
        )
        const second = yield* waitingAsk(b.location, bash(b.session.id, "ls"), events)
        const snapshot = success<Snapshot>(yield* call("app.snapshot", null))
        assert.deepStrictEqual(pendingIds(snapshot), [first.id, second.id])
        const [ask, other] = snapshot.asks
        assert.strictEqual(ask!.agent, "plan")
        assert.strictEqual(ask!.projectID, a.project.id)
        assert.strictEqual(ask!.askedAt, timestampOf(first.id))
        assert.deepStrictEqual(ask!.call, { tool: "bash", input: { command: "rm -rf build" } })
        assert.deepStrictEqual(ask!.request.metadata, { workdir: "." })
        assert.strictEqual(other!.agent, "build")
        assert.strictEqual(other!.projectID, b.project.id)
        assert.isNull(other!.call)
        const bus = yield* EventBus.Service
        assert.strictEqual(snapshot.seq, bus.sequence())
      }).pipe(Effect.scoped, Effect.provide(layer))
    },
  )

  it.effect("answers an ask once: the waiting call goes on and the ask leaves the snapshot", () => {
    const { root, layer } = testLayer()
    return Effect.gen(function* () {
      const events = yield* recordEvents
      const a = yield* openSession(root, "a")
      const ask = yield* waitingAsk(a.location, bash(a.session.id, "ls"), events)
      assert.isNull(success(yield* call("permission.reply", { requestID: ask.id, reply: "once" })))
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(ask.fiber)))
      assert.deepStrictEqual(pendingIds(success<Snapshot>(yield* call("app.snapshot", null))), [])
      yield* events.until((event) => event._tag === "permission.v2.replied" && event.requestID === ask.id)
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("hands a reject's feedback to the waiting call as a correction", () => {
    const { root, layer } = testLayer()
    return Effect.gen(function* () {
      const events = yield* recordEvents
      const a = yield* openSession(root, "a")
      const ask = yield* waitingAsk(a.location, bash(a.session.id, "rm -rf /"), events)
      const answer = { requestID: ask.id, reply: "reject", message: "use the trash instead" }
      assert.isNull(success(yield* call("permission.reply", answer)))
      const outcome = yield* Fiber.join(ask.fiber)
      const error = Exit.isFailure(outcome) ? Cause.findError(outcome.cause) : undefined
      assert.strictEqual(error?._tag, "Success")
      assert.instanceOf(error?._tag === "Success" ? error.success : undefined, PermissionV2.CorrectedError)
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("returns PermissionV2.NotFoundError as data for an ask that is gone, and decode errors as data", () => {
    const { root, layer } = testLayer()
    return Effect.gen(function* () {
      const events = yield* recordEvents
      const a = yield* openSession(root, "a")
      const ask = yield* waitingAsk(a.location, bash(a.session.id, "ls"), events)
      success(yield* call("permission.reply", { requestID: ask.id, reply: "once" }))
      const again = failure(yield* call("permission.reply", { requestID: ask.id, reply: "once" }))
      assert.strictEqual(again._tag, "PermissionV2.NotFoundError")
      assert.strictEqual(again.requestID, ask.id)
      const badId = failure(yield* call("permission.reply", { requestID: "per_nope", reply: "once" }))
      assert.strictEqual(badId._tag, "Contract.InvalidRequestError")
      assert.include(String(badId.reason), "requestID")
      const badReply = failure(yield* call("permission.reply", { requestID: ask.id, reply: "sometimes" }))
      assert.strictEqual(badReply._tag, "Contract.InvalidRequestError")
      assert.include(String(badReply.reason), "reply")
      const missing = failure(yield* call("permission.rejectSession", {}))
      assert.strictEqual(missing._tag, "Contract.InvalidRequestError")
      const questionless = failure(yield* call("question.reply", { requestID: "que_x", answers: "yes" }))
      assert.strictEqual(questionless._tag, "Contract.InvalidRequestError")
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect(
    "answers a chosen set in order and reports each ask as replied, settled by an earlier answer, or gone",
    () => {
      const { root, layer } = testLayer()
      return Effect.gen(function* () {
        const events = yield* recordEvents
        const a = yield* openSession(root, "a")
        const b = yield* openSession(root, "b")
        const a1 = yield* waitingAsk(a.location, bash(a.session.id, "one"), events)
        const a2 = yield* waitingAsk(a.location, bash(a.session.id, "two"), events)
        const b1 = yield* waitingAsk(b.location, bash(b.session.id, "three"), events)
        const b2 = yield* waitingAsk(b.location, bash(b.session.id, "four"), events)
        const gone = "per_0000000000000001abcdefABCDEF" as PermissionRequestId
        const result = success<{ results: ReadonlyArray<{ requestID: string; outcome: string }> }>(
          yield* call("permission.replyMany", { requestIDs: [a1.id, a2.id, gone, b1.id], reply: "reject" }),
        )
        assert.deepStrictEqual(result.results, [
          { requestID: a1.id, outcome: "replied" },
          { requestID: a2.id, outcome: "settled" },
          { requestID: gone, outcome: "gone" },
          { requestID: b1.id, outcome: "replied" },
        ])
        // b2 was not chosen, but a reject cascades through its session (SPEC-CORE D.7).
        assert.deepStrictEqual(pendingIds(success<Snapshot>(yield* call("app.snapshot", null))), [])
        for (const ask of [a1, a2, b1, b2]) {
          const exit = yield* Fiber.join(ask.fiber)
          assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause), "a plain reject declines the call")
        }
      }).pipe(Effect.scoped, Effect.provide(layer))
    },
  )

  it.effect("approves always for a set: the saved pattern auto-approves the others that it covers", () => {
    const { root, layer } = testLayer()
    return Effect.gen(function* () {
      const events = yield* recordEvents
      const a = yield* openSession(root, "a")
      const first = yield* waitingAsk(a.location, { ...bash(a.session.id, "git status"), save: ["git *"] }, events)
      const second = yield* waitingAsk(a.location, bash(a.session.id, "git log"), events)
      const third = yield* waitingAsk(a.location, bash(a.session.id, "npm test"), events)
      const result = success<{ results: ReadonlyArray<{ requestID: string; outcome: string }> }>(
        yield* call("permission.replyMany", { requestIDs: [first.id, second.id], reply: "always" }),
      )
      assert.deepStrictEqual(
        result.results.map((entry) => entry.outcome),
        ["replied", "settled"],
      )
      assert.deepStrictEqual(pendingIds(success<Snapshot>(yield* call("app.snapshot", null))), [third.id])
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("rejects every pending ask of one session in one step and leaves other sessions' asks", () => {
    const { root, layer } = testLayer()
    return Effect.gen(function* () {
      const events = yield* recordEvents
      const sessions = yield* Sessions.Service
      const a = yield* openSession(root, "a")
      const b = yield* openSession(root, "b")
      const other = yield* sessions.create({
        projectId: a.project.id,
        agent: "build",
        title: "other",
        source: "runner",
      })
      const asks = []
      for (const command of ["one", "two", "three"])
        asks.push(yield* waitingAsk(a.location, bash(a.session.id, command), events))
      const sameProject = yield* waitingAsk(a.location, bash(other.id, "four"), events)
      const otherProject = yield* waitingAsk(b.location, bash(b.session.id, "five"), events)
      const result = success<{ rejected: ReadonlyArray<string> }>(
        yield* call("permission.rejectSession", { sessionID: a.session.id, message: "stop and explain" }),
      )
      assert.deepStrictEqual(
        result.rejected,
        asks.map((ask) => ask.id),
      )
      assert.deepStrictEqual(pendingIds(success<Snapshot>(yield* call("app.snapshot", null))), [
        sameProject.id,
        otherProject.id,
      ])
      // The oldest ask carries the feedback; the cascade declines the rest.
      const firstExit = (yield* Fiber.join(asks[0]!.fiber)) as Exit.Exit<void, unknown>
      const firstError = Exit.isFailure(firstExit) ? Cause.findError(firstExit.cause) : undefined
      assert.instanceOf(firstError?._tag === "Success" ? firstError.success : undefined, PermissionV2.CorrectedError)
      const secondExit = (yield* Fiber.join(asks[1]!.fiber)) as Exit.Exit<void, unknown>
      assert.isTrue(Exit.isFailure(secondExit) && Cause.hasDies(secondExit.cause))
      const none = success<{ rejected: ReadonlyArray<string> }>(
        yield* call("permission.rejectSession", { sessionID: a.session.id }),
      )
      assert.deepStrictEqual(none.rejected, [])
      const unknown = failure(
        yield* call("permission.rejectSession", { sessionID: "ses_0000000000000001abcdefABCDEF" }),
      )
      assert.strictEqual(unknown._tag, "Sessions.NotFoundError")
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("lists pending questions in the snapshot, answers them, and returns their errors as data", () => {
    const { root, layer } = testLayer()
    return Effect.gen(function* () {
      const events = yield* recordEvents
      const questions = yield* Questions.Service
      const a = yield* openSession(root, "a")
      const fiber = yield* Effect.forkScoped(
        questions.ask({
          sessionID: a.session.id,
          questions: [
            {
              question: "Which database?",
              header: "Database",
              options: [
                { label: "SQLite", description: "one file" },
                { label: "Postgres", description: "a server" },
              ],
            },
          ],
        }),
      )
      yield* events.until((event) => event._tag === "question.v2.asked")
      const snapshot = success<Snapshot>(yield* call("app.snapshot", null))
      assert.lengthOf(snapshot.questions, 1)
      const pending = snapshot.questions[0]!
      assert.strictEqual(pending.agent, "build")
      assert.strictEqual(pending.projectID, a.project.id)
      assert.strictEqual(pending.askedAt, timestampOf(pending.request.id))
      const requestID = pending.request.id
      const invalid = failure(yield* call("question.reply", { requestID, answers: [["SQLite", "Postgres"]] }))
      assert.strictEqual(invalid._tag, "Questions.InvalidReplyError")
      assert.isNull(success(yield* call("question.reply", { requestID, answers: [["SQLite"]] })))
      assert.deepStrictEqual(yield* Fiber.join(fiber), [["SQLite"]])
      assert.lengthOf(success<Snapshot>(yield* call("app.snapshot", null)).questions, 0)
      const gone = failure(yield* call("question.reply", { requestID, answers: [] }))
      assert.strictEqual(gone._tag, "Questions.NotFoundError")
      const goneReject = failure(yield* call("question.reject", { requestID }))
      assert.strictEqual(goneReject._tag, "Questions.NotFoundError")
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("dismisses pending questions: the asking call stops", () => {
    const { root, layer } = testLayer()
    return Effect.gen(function* () {
      const events = yield* recordEvents
      const questions = yield* Questions.Service
      const a = yield* openSession(root, "a")
      const fiber = yield* Effect.forkScoped(
        Effect.exit(
          questions.ask({
            sessionID: a.session.id,
            questions: [{ question: "Go on?", header: "Go", options: [{ label: "Yes", description: "" }] }],
          }),
        ),
      )
      yield* events.until((event) => event._tag === "question.v2.asked")
      const requestID = (yield* questions.list())[0]!.id as QuestionId
      assert.isNull(success(yield* call("question.reject", { requestID })))
      const exit = yield* Fiber.join(fiber)
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      yield* events.until((event) => event._tag === "question.v2.rejected" && event.requestID === requestID)
    }).pipe(Effect.scoped, Effect.provide(layer))
  })
})
