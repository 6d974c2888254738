import { Effect } from "effect"
import { SessionNotFoundError, SESSION_DETAIL_LIMIT, type DecisionsFilter } from "@contract/methods"
import type { PermissionDecision } from "@contract/model"
import { DecisionLog } from "@core/permission/DecisionLog"
import { Sessions } from "@core/session/Sessions"
import { Todos } from "@core/session/Todos"
import { ToolCalls } from "@core/session/ToolCalls"
import type { Handlers } from "./ContractServer"

// The sessions view's side of the contract: the table, one session's detail (tool-call timeline,
// todos, decisions) and the decision log with its JSONL export. Starting and stopping sessions
// belongs to the runner's handlers.

/** The services the sessions and decisions handlers use. */
export type SessionsServices = Sessions.Service | ToolCalls.Service | Todos.Service | DecisionLog.Service

type SessionsMethod = "sessions.list" | "sessions.get" | "decisions.list" | "decisions.export"

const logFilter = (filter: DecisionsFilter) => ({
  ...(filter.sessionID !== undefined ? { sessionID: filter.sessionID } : {}),
  ...(filter.projectID !== undefined ? { projectID: filter.projectID } : {}),
  ...(filter.status !== undefined ? { status: filter.status } : {}),
})

/** One decision per line, newest first: a log that `jq` and spreadsheets read line by line. */
export const toJsonl = (decisions: ReadonlyArray<PermissionDecision>) =>
  decisions.map((decision) => `${JSON.stringify(decision)}\n`).join("")

export const sessionsHandlers: Pick<Handlers<SessionsServices>, SessionsMethod> = {
  "sessions.list": (input) =>
    Effect.gen(function* () {
      const sessions = yield* Sessions.Service
      return (yield* sessions.list()).filter(
        (session) =>
          (input.projectID === undefined || session.projectId === input.projectID) &&
          (input.status === undefined || session.status === input.status),
      )
    }),
  "sessions.get": (input) =>
    Effect.gen(function* () {
      const sessions = yield* Sessions.Service
      const toolCalls = yield* ToolCalls.Service
      const todos = yield* Todos.Service
      const log = yield* DecisionLog.Service
      const session = yield* sessions
        .get(input.sessionID)
        .pipe(Effect.mapError(() => new SessionNotFoundError({ sessionID: input.sessionID })))
      const calls = yield* toolCalls.forSession(input.sessionID)
      return {
        session,
        toolCalls: calls.length > SESSION_DETAIL_LIMIT ? calls.slice(-SESSION_DETAIL_LIMIT) : calls,
        todos: yield* todos.list(input.sessionID),
        decisions: yield* log.list({ sessionID: input.sessionID, limit: SESSION_DETAIL_LIMIT }),
      }
    }),
  "decisions.list": (input) =>
    Effect.gen(function* () {
      const log = yield* DecisionLog.Service
      const offset = input.offset ?? 0
      const limit = input.limit ?? 100
      // The log pages by limit only: read one row past the page to know whether another follows.
      const rows = yield* log.list({ ...logFilter(input), limit: offset + limit + 1 })
      return {
        decisions: rows.slice(offset, offset + limit),
        nextOffset: rows.length > offset + limit ? offset + limit : null,
      }
    }),
  "decisions.export": (input) =>
    Effect.gen(function* () {
      const log = yield* DecisionLog.Service
      return toJsonl(yield* log.list(logFilter(input)))
    }),
}
