import { Cause, Effect, type Exit } from "effect"
import type { PermissionRequestId, SessionId } from "@contract/ids"
import {
  AskForwardError,
  AskNotFoundError,
  QuestionInvalidReplyError,
  QuestionNotFoundError,
  SessionNotFoundError,
  type ReplyOutcome,
} from "@contract/methods"
import type {
  PendingAsk,
  PendingCall,
  PendingQuestion,
  PermissionReply,
  PermissionRequest,
  Session,
} from "@contract/model"
import { timestampOf } from "@core/id/Identifier"
import { AskSources } from "@core/permission/AskSources"
import type { PermissionV2 } from "@core/permission/PermissionV2"
import { Agents } from "@core/session/Agents"
import { Questions } from "@core/session/Questions"
import { Sessions } from "@core/session/Sessions"
import { ToolCalls } from "@core/session/ToolCalls"
import type { Handlers } from "./ContractServer"

// The inbox's side of the contract: what is pending (for `app.snapshot`) and the answers. Every
// answer goes to the core by the id the person was shown; the core publishes what changed, so
// this file never tells the UI anything beyond the call's own result.

/** The services the inbox handlers use. */
export type InboxServices = AskSources.Service | Questions.Service | Sessions.Service | ToolCalls.Service

/** What is pending, as the inbox shows it. */
export interface PendingInbox {
  readonly asks: ReadonlyArray<PendingAsk>
  readonly questions: ReadonlyArray<PendingQuestion>
}

const callKey = (messageID: string, callID: string) => `${messageID}\u0000${callID}`

const byId = <T extends { readonly id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * Reads every pending ask and question with its context, synchronously: call the returned
 * function inside the snapshot's one `Effect.sync` (EventBus consistency rule), with the sessions
 * read in the same step.
 */
export const pendingReader = Effect.gen(function* () {
  const sources = yield* AskSources.Service
  const questions = yield* Questions.Service
  const toolCalls = yield* ToolCalls.Service
  return (sessions: ReadonlyArray<Session>): PendingInbox => {
    const sessionById = new Map(sessions.map((session) => [session.id, session]))
    // The running calls of each session that has asks, read once per session.
    const running = new Map<SessionId, Map<string, PendingCall>>()
    const callOf = (request: PermissionRequest): PendingCall | null => {
      if (!request.source) return null
      let calls = running.get(request.sessionID)
      if (!calls) {
        calls = new Map()
        for (const call of toolCalls.forSessionUnsafe(request.sessionID))
          if (call.status === "running")
            calls.set(callKey(call.messageID, call.callID), { tool: call.tool, input: call.input })
        running.set(request.sessionID, calls)
      }
      return calls.get(callKey(request.source.messageID, request.source.callID)) ?? null
    }
    // Already oldest first: every source's asks (live Locations, connected servers), merged.
    const asks: Array<PendingAsk> = sources.pendingUnsafe().map(({ request, projectID }) => ({
      request,
      askedAt: timestampOf(request.id),
      agent: sessionById.get(request.sessionID)?.agent || Agents.DEFAULT_AGENT,
      projectID,
      call: callOf(request),
    }))
    const pendingQuestions: Array<PendingQuestion> = []
    for (const request of questions.listUnsafe()) {
      // `question.session_id` references `session(id)`: a pending question always has its session.
      const session = sessionById.get(request.sessionID)
      if (!session) continue
      pendingQuestions.push({
        request,
        askedAt: timestampOf(request.id),
        agent: session.agent || Agents.DEFAULT_AGENT,
        projectID: session.projectId,
      })
    }
    pendingQuestions.sort((a, b) => byId(a.request, b.request))
    return { asks, questions: pendingQuestions }
  }
})

const replyInput = (requestID: PermissionRequestId, reply: PermissionReply, message: string | undefined) =>
  message === undefined ? { requestID, reply } : { requestID, reply, message }

/** The pending asks of one session, oldest first. */
const pendingOf = (sources: AskSources.Interface, sessionID: SessionId) => sources.forSessionUnsafe(sessionID)

const toContractError = (error: PermissionV2.NotFoundError | AskSources.ForwardError) =>
  error._tag === "AskSources.ForwardError"
    ? new AskForwardError({ requestID: error.requestID, reason: error.reason })
    : new AskNotFoundError({ requestID: error.requestID })

/** The forward failure an answer ended with, if that is how it failed. */
const forwardErrorOf = (exit: Exit.Exit<void, PermissionV2.NotFoundError | AskSources.ForwardError>) => {
  if (exit._tag === "Success") return undefined
  const error = Cause.findErrorOption(exit.cause)
  return error._tag === "Some" && error.value._tag === "AskSources.ForwardError" ? error.value : undefined
}

type InboxMethod =
  "permission.reply" | "permission.replyMany" | "permission.rejectSession" | "question.reply" | "question.reject"

export const inboxHandlers: Pick<Handlers<InboxServices>, InboxMethod> = {
  "permission.reply": (input) =>
    Effect.gen(function* () {
      const sources = yield* AskSources.Service
      yield* sources
        .reply(replyInput(input.requestID, input.reply, input.message))
        .pipe(Effect.mapError(toContractError))
      return null
    }),

  "permission.replyMany": (input) =>
    Effect.gen(function* () {
      const sources = yield* AskSources.Service
      const pendingAtStart = yield* Effect.sync(() => new Set(sources.pendingUnsafe().map(({ request }) => request.id)))
      const results: Array<{ requestID: PermissionRequestId; outcome: ReplyOutcome; reason?: string }> = []
      for (const requestID of input.requestIDs) {
        if (!pendingAtStart.has(requestID)) {
          results.push({ requestID, outcome: "gone" })
          continue
        }
        const exit = yield* Effect.exit(sources.reply(replyInput(requestID, input.reply, input.message)))
        const forward = forwardErrorOf(exit)
        // Not found here means an earlier answer of this call (or someone else) ended it meanwhile.
        results.push(
          exit._tag === "Success"
            ? { requestID, outcome: "replied" }
            : forward
              ? { requestID, outcome: "failed", reason: forward.message }
              : { requestID, outcome: "settled" },
        )
      }
      return { results }
    }),

  "permission.rejectSession": (input) =>
    Effect.gen(function* () {
      const sources = yield* AskSources.Service
      const sessions = yield* Sessions.Service
      if (!sessions.findUnsafe(input.sessionID)) return yield* new SessionNotFoundError({ sessionID: input.sessionID })
      const rejected: Array<PermissionRequestId> = []
      // One reject of the oldest ask rejects the rest through the core's cascade, in one
      // transaction. Another answer may end that ask first: then try again with what is left.
      for (let attempt = 0; attempt < 3; attempt++) {
        const pending = yield* Effect.sync(() => pendingOf(sources, input.sessionID))
        const oldest = pending[0]
        if (!oldest) break
        const exit = yield* Effect.exit(sources.reply(replyInput(oldest.id, "reject", input.message)))
        // An agent server that cannot be told keeps its asks: say so rather than report nothing.
        const forward = forwardErrorOf(exit)
        if (forward) return yield* new AskForwardError({ requestID: forward.requestID, reason: forward.reason })
        if (exit._tag === "Failure") continue
        const still = new Set(pendingOf(sources, input.sessionID).map((request) => request.id))
        for (const request of pending) if (!still.has(request.id)) rejected.push(request.id)
        break
      }
      return { rejected }
    }),

  "question.reply": (input) =>
    Effect.gen(function* () {
      const questions = yield* Questions.Service
      yield* questions
        .reply({ requestID: input.requestID, answers: input.answers })
        .pipe(
          Effect.mapError((error) =>
            error._tag === "Questions.InvalidReplyError"
              ? new QuestionInvalidReplyError({ requestID: error.requestID, reason: error.reason })
              : new QuestionNotFoundError({ requestID: error.requestID }),
          ),
        )
      return null
    }),

  "question.reject": (input) =>
    Effect.gen(function* () {
      const questions = yield* Questions.Service
      yield* questions
        .reject(input.requestID)
        .pipe(Effect.mapError((error) => new QuestionNotFoundError({ requestID: error.requestID })))
      return null
    }),
}
