import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { DecisionsPage, SessionDetail } from "@contract/methods"
import type { PermissionDecision, Session } from "@contract/model"
import { Locations } from "@core/location/Locations"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import { Todos } from "@core/session/Todos"
import { ToolCalls } from "@core/session/ToolCalls"
import { makeTempDir } from "../../support/temp"
import { call, contractTestLayer, failure, success } from "./contract"

// The sessions view's methods (table, detail, decision log) through the contract's dispatcher,
// against the real core.

const config = { agents: { build: [{ action: "bash", resource: "*", effect: "ask" as const }] } }

const newSession = (projectId: Session["projectId"], agent = "build") =>
  Effect.gen(function* () {
    const sessions = yield* Sessions.Service
    return yield* sessions.create({ projectId, agent, title: `${agent} session`, source: "runner" })
  })

/** Asks `count` bash questions in the session's Location and returns their ids, oldest first. */
const ask = (session: Session, commands: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const locations = yield* Locations.Service
    const location = yield* locations.acquire(session.projectId)
    const ids = []
    for (const command of commands) {
      const asked = yield* location.permission.ask({ sessionID: session.id, action: "bash", resources: [command] })
      ids.push(asked.id)
    }
    return ids
  })

describe("sessions handlers", () => {
  it.effect("lists sessions filtered by project and status", () =>
    Effect.gen(function* () {
      const projects = yield* Projects.Service
      const sessions = yield* Sessions.Service
      const a = yield* projects.ensure(makeTempDir())
      const b = yield* projects.ensure(makeTempDir())
      const one = yield* newSession(a.id)
      const two = yield* newSession(b.id)
      yield* sessions.setStatus(two.id, "stopped")
      const ids = (payload: unknown) =>
        call("sessions.list", payload).pipe(
          Effect.map((exit) => success<ReadonlyArray<Session>>(exit).map((session) => session.id)),
        )
      assert.deepStrictEqual(yield* ids({}), [one.id, two.id])
      assert.deepStrictEqual(yield* ids({ projectID: a.id }), [one.id])
      assert.deepStrictEqual(yield* ids({ status: "stopped" }), [two.id])
      assert.deepStrictEqual(yield* ids({ projectID: a.id, status: "stopped" }), [])
    }).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("gives one session's tool-call timeline, todos and decisions", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const projects = yield* Projects.Service
        const toolCalls = yield* ToolCalls.Service
        const todos = yield* Todos.Service
        const project = yield* projects.ensure(makeTempDir())
        const session = yield* newSession(project.id)
        const other = yield* newSession(project.id)
        const key = { sessionID: session.id, messageID: "msg-1", callID: "call-1" }
        yield* toolCalls.start({ ...key, tool: "bash", input: { command: "seq 3000" } })
        yield* toolCalls.finish(key, {
          result: { type: "text", value: "1\n2\n…" },
          outputPaths: ["/data/tool-output/tool_x"],
        })
        yield* toolCalls.start({ ...key, callID: "call-2", tool: "read", input: { filePath: "a" } })
        yield* toolCalls.start({ sessionID: other.id, messageID: "m", callID: "c", tool: "glob", input: {} })
        yield* todos.update({
          sessionID: session.id,
          todos: [{ content: "ship", status: "pending", priority: "high" }],
        })
        const [requestID] = yield* ask(session, ["rm -rf build"])
        success(yield* call("permission.reply", { requestID, reply: "reject", message: "use make clean" }))

        const detail = success<SessionDetail>(yield* call("sessions.get", { sessionID: session.id }))
        assert.strictEqual(detail.session.id, session.id)
        assert.deepStrictEqual(
          detail.toolCalls.map((toolCall) => [toolCall.callID, toolCall.tool, toolCall.status]),
          [
            ["call-1", "bash", "completed"],
            ["call-2", "read", "running"],
          ],
        )
        assert.deepStrictEqual(detail.toolCalls[0]!.outputPaths, ["/data/tool-output/tool_x"])
        assert.deepStrictEqual(detail.todos, [{ content: "ship", status: "pending", priority: "high" }])
        assert.deepStrictEqual(
          detail.decisions.map((decision) => [decision.id, decision.status, decision.feedback]),
          [[requestID, "corrected", "use make clean"]],
        )
      }),
    ).pipe(Effect.provide(contractTestLayer({ config }))),
  )

  it.effect("answers an unknown session with not found, as data", () =>
    Effect.gen(function* () {
      const error = failure(yield* call("sessions.get", { sessionID: "ses_00000000000000ffabcdefABCDEF" }))
      assert.strictEqual(error._tag, "Sessions.NotFoundError")
    }).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("pages the decision log newest first, filtered by session, project and status", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const projects = yield* Projects.Service
        const project = yield* projects.ensure(makeTempDir())
        const elsewhere = yield* projects.ensure(makeTempDir())
        const session = yield* newSession(project.id)
        const other = yield* newSession(elsewhere.id)
        const ids = yield* ask(session, ["a", "b", "c", "d", "e"])
        const [foreign] = yield* ask(other, ["x"])
        success(yield* call("permission.reply", { requestID: ids[4], reply: "once" }))

        const page = (payload: unknown) => call("decisions.list", payload).pipe(Effect.map(success<DecisionsPage>))
        const first = yield* page({ sessionID: session.id, limit: 2 })
        assert.deepStrictEqual(
          first.decisions.map((decision) => decision.id),
          [ids[4], ids[3]],
        )
        assert.strictEqual(first.nextOffset, 2)
        const last = yield* page({ sessionID: session.id, limit: 2, offset: 4 })
        assert.deepStrictEqual(
          last.decisions.map((decision) => decision.id),
          [ids[0]],
        )
        assert.isNull(last.nextOffset)
        const exact = yield* page({ sessionID: session.id, limit: 5 })
        assert.lengthOf(exact.decisions, 5)
        assert.isNull(exact.nextOffset)
        assert.deepStrictEqual(
          (yield* page({ status: "once" })).decisions.map((decision) => decision.id),
          [ids[4]],
        )
        assert.deepStrictEqual(
          (yield* page({ projectID: elsewhere.id })).decisions.map((decision) => decision.id),
          [foreign],
        )
      }),
    ).pipe(Effect.provide(contractTestLayer({ config }))),
  )

  it.effect("exports the filtered decision log as JSONL, one decision per line", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const projects = yield* Projects.Service
        const project = yield* projects.ensure(makeTempDir())
        const session = yield* newSession(project.id)
        const ids = yield* ask(session, ["a", "b"])
        const jsonl = success<string>(yield* call("decisions.export", { sessionID: session.id }))
        assert.isTrue(jsonl.endsWith("\n"))
        const rows = jsonl
          .trimEnd()
          .split("\n")
          .map((line) => JSON.parse(line) as PermissionDecision)
        assert.deepStrictEqual(
          rows.map((row) => [row.id, row.status, row.resources]),
          [
            [ids[1], "pending", ["b"]],
            [ids[0], "pending", ["a"]],
          ],
        )
        assert.strictEqual(success<string>(yield* call("decisions.export", { status: "auto" })), "")
      }),
    ).pipe(Effect.provide(contractTestLayer({ config }))),
  )
})
