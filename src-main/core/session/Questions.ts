import { Context, Deferred, Effect, Exit, Layer, Schema } from "effect"
import { QuestionId, type SessionId } from "@contract/ids"
import type { QuestionAnswer, QuestionInfo, QuestionRequest, QuestionStatus, QuestionTool } from "@contract/model"
import { EventBus } from "../events/EventBus"
import { newId } from "../id/Identifier"
import { commit, type Outbox } from "../permission/outbox"
import { Store } from "../store/Store"
import { sql } from "../store/sql"
import { Sessions } from "./Sessions"

export * as Questions from "./Questions"

export type ID = QuestionId
export type Request = QuestionRequest
export type Answer = QuestionAnswer

export interface AskInput {
  readonly sessionID: SessionId
  readonly questions: ReadonlyArray<QuestionInfo>
  /** The tool call asking, so the inbox can show the question beside it. */
  readonly tool?: QuestionTool
}

export interface ReplyInput {
  readonly requestID: QuestionId
  /** One answer per question, in order: the picked labels (empty, or missing at the end: unanswered). */
  readonly answers: ReadonlyArray<Answer>
}

/**
 * The person dismissed the questions (or the process closed while they were open). Like
 * PermissionV2's DeclinedError this reaches the asking tool as a DEFECT: the runner stops the
 * session (SPEC-CORE A.5) instead of the model reading a tool error and carrying on.
 */
export class RejectedError extends Schema.TaggedError<RejectedError>()("QuestionV2.RejectedError", {}) {
  override get message() {
    return "The user dismissed this question"
  }
}

export class NotFoundError extends Schema.TaggedError<NotFoundError>()("Questions.NotFoundError", {
  requestID: Schema.String,
}) {
  override get message() {
    return `Question not found: ${this.requestID}`
  }
}

/** The answers do not fit the questions: more answers than questions, or several for a single choice. */
export class InvalidReplyError extends Schema.TaggedError<InvalidReplyError>()("Questions.InvalidReplyError", {
  requestID: Schema.String,
  reason: Schema.String,
}) {
  override get message() {
    return `Invalid answers for question ${this.requestID}: ${this.reason}`
  }
}

/**
 * Questions the model asks the person (the `question` tool, SPEC-CORE E.12), answered in the inbox.
 *
 * One per process, not per Location: the inbox answers by id whatever project asked, and the
 * `question` table is reconciled once at start (questions a previous process left `pending` are
 * marked `interrupted`, since their waiters died with it). A question's waiter is the tool call's
 * own fiber, so a Location closing (which interrupts its calls) withdraws its questions.
 *
 * Every change is written to the table and published on the EventBus in one synchronous block.
 */
export interface Interface {
  /** The questions found pending (and marked `interrupted`) when this process started. */
  readonly interruptedAtStart: ReadonlyArray<QuestionId>
  /**
   * Publishes `question.v2.asked` and waits for the answers, one array of labels per question.
   * A dismissal ({@link reject}) or the service closing makes the waiter DIE with
   * {@link RejectedError}. Only the wait is interruptible; interrupting it withdraws the question
   * (`interrupted`, `question.v2.withdrawn`).
   */
  readonly ask: (input: AskInput) => Effect.Effect<ReadonlyArray<Answer>, Sessions.NotFoundError>
  /** Answers a pending question (`question.v2.replied`); missing trailing answers count as unanswered. */
  readonly reply: (input: ReplyInput) => Effect.Effect<void, NotFoundError | InvalidReplyError>
  /** Dismisses a pending question (`question.v2.rejected`): its asking session stops. */
  readonly reject: (requestID: QuestionId) => Effect.Effect<void, NotFoundError>
  /** Pending questions, oldest first. */
  readonly list: () => Effect.Effect<ReadonlyArray<Request>>
  /** The same, synchronously, for snapshots (EventBus consistency rule). */
  readonly listUnsafe: () => ReadonlyArray<Request>
  readonly forSession: (sessionID: SessionId) => Effect.Effect<ReadonlyArray<Request>>
  readonly get: (id: QuestionId) => Effect.Effect<Request | undefined>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/session/Questions") {}

interface Pending {
  readonly request: Request
  readonly deferred: Deferred.Deferred<ReadonlyArray<Answer>, RejectedError>
}

// Read directly rather than through Sessions.Service: this layer sits beside Sessions in the
// composition root's domain tier, which only provides the infrastructure below it.
const Found = Schema.Struct({ found: Schema.Number })
const sessionExists = (store: Store.Interface, id: SessionId) =>
  store.get(Found, sql`SELECT 1 AS found FROM session WHERE id = ${id}`) !== undefined

/** Marks every pending row `interrupted` and returns their ids. */
export function interruptPending(store: Store.Interface, now: number): ReadonlyArray<QuestionId> {
  return store.transaction(() => {
    const ids = store
      .all(Schema.Struct({ id: QuestionId }), sql`SELECT id FROM question WHERE status = 'pending' ORDER BY id`)
      .map((row) => row.id)
    if (ids.length > 0)
      store.run(sql`UPDATE question SET status = 'interrupted', decided_at = ${now} WHERE status = 'pending'`)
    return ids
  })
}

/** How a question ended, as the table keeps it (everything but `pending`). */
type Outcome = Exclude<QuestionStatus, "pending">

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const store = yield* Store.Service
    const bus = yield* EventBus.Service
    const pending = new Map<QuestionId, Pending>()
    let closed = false

    const interruptedAtStart = yield* Effect.sync(() => interruptPending(store, Date.now()))
    if (interruptedAtStart.length > 0)
      yield* Effect.logWarning(
        `Marked ${interruptedAtStart.length} question(s) left pending by a previous run as interrupted`,
      )

    const decide = (id: QuestionId, status: Outcome, answers: ReadonlyArray<Answer> | null, now: number) =>
      store.run(
        sql`UPDATE question SET status = ${status}, answers = ${answers === null ? null : JSON.stringify(answers)},
              decided_at = ${now}
            WHERE id = ${id} AND status = 'pending'`,
      )

    const withdraw = (entry: Pending, outbox: Outbox, now: number) => {
      decide(entry.request.id, "interrupted", null, now)
      outbox.push({ _tag: "question.v2.withdrawn", sessionID: entry.request.sessionID, requestID: entry.request.id })
    }

    type Admission =
      { readonly _tag: "closed" } | { readonly _tag: "missing" } | { readonly _tag: "asked"; readonly entry: Pending }

    const admit = (input: AskInput): Admission => {
      if (closed) return { _tag: "closed" }
      return commit(
        store,
        bus,
        (outbox): Admission => {
          if (!sessionExists(store, input.sessionID)) return { _tag: "missing" }
          const request: Request = {
            id: newId.question(),
            sessionID: input.sessionID,
            questions: input.questions.map(copyQuestion),
            ...(input.tool ? { tool: { messageID: input.tool.messageID, callID: input.tool.callID } } : {}),
          }
          store.run(
            sql`INSERT INTO question (id, session_id, message_id, call_id, questions, status, created_at)
                VALUES (${request.id}, ${request.sessionID}, ${request.tool?.messageID ?? null},
                  ${request.tool?.callID ?? null}, ${JSON.stringify(request.questions)}, 'pending', ${Date.now()})`,
          )
          outbox.push({ _tag: "question.v2.asked", request })
          return { _tag: "asked", entry: { request, deferred: Deferred.makeUnsafe() } }
        },
        (admission) => {
          if (admission._tag === "asked") pending.set(admission.entry.request.id, admission.entry)
        },
      )
    }

    const ask = Effect.fn("Questions.ask")((input: AskInput) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const admission = yield* Effect.sync(() => admit(input))
          if (admission._tag === "closed") return yield* Effect.die(new RejectedError())
          if (admission._tag === "missing") return yield* new Sessions.NotFoundError({ sessionID: input.sessionID })
          const entry = admission.entry
          return yield* restore(Deferred.await(entry.deferred)).pipe(
            Effect.onInterrupt(() =>
              Effect.sync(() => {
                if (pending.get(entry.request.id) !== entry) return
                commit(
                  store,
                  bus,
                  (outbox) => withdraw(entry, outbox, Date.now()),
                  () => pending.delete(entry.request.id),
                )
              }),
            ),
            // Deliberate defect tunnel, as for PermissionV2's DeclinedError: the question tool maps
            // its typed failures to model-visible output, and a dismissal must not become that. It
            // travels as a defect and the runner stops the session (SPEC-CORE A.5, H.6).
            Effect.catchTag("QuestionV2.RejectedError", (error) => Effect.die(error)),
          )
        }),
      ),
    )

    const answer = (input: ReplyInput): "missing" | { readonly invalid: string } | "done" => {
      const existing = pending.get(input.requestID)
      if (!existing) return "missing"
      const questions = existing.request.questions
      if (input.answers.length > questions.length)
        return { invalid: `${input.answers.length} answers for ${questions.length} question(s)` }
      const single = input.answers.findIndex((labels, i) => labels.length > 1 && questions[i]?.multiple !== true)
      if (single !== -1)
        return { invalid: `question ${single + 1} allows one answer, got ${input.answers[single]!.length}` }
      const answers = questions.map((_, i) => [...(input.answers[i] ?? [])])
      commit(
        store,
        bus,
        (outbox) => {
          decide(existing.request.id, "answered", answers, Date.now())
          outbox.push({
            _tag: "question.v2.replied",
            sessionID: existing.request.sessionID,
            requestID: existing.request.id,
            answers,
          })
        },
        () => {
          pending.delete(existing.request.id)
          Deferred.doneUnsafe(existing.deferred, Exit.succeed(answers))
        },
      )
      return "done"
    }

    const dismiss = (requestID: QuestionId): boolean => {
      const existing = pending.get(requestID)
      if (!existing) return false
      commit(
        store,
        bus,
        (outbox) => {
          decide(existing.request.id, "rejected", null, Date.now())
          outbox.push({ _tag: "question.v2.rejected", sessionID: existing.request.sessionID, requestID })
        },
        () => {
          pending.delete(requestID)
          Deferred.doneUnsafe(existing.deferred, Exit.fail(new RejectedError()))
        },
      )
      return true
    }

    const reply = Effect.fn("Questions.reply")(function* (input: ReplyInput) {
      const outcome = yield* Effect.sync(() => answer(input))
      if (outcome === "missing") return yield* new NotFoundError({ requestID: input.requestID })
      if (outcome !== "done")
        return yield* new InvalidReplyError({ requestID: input.requestID, reason: outcome.invalid })
    })

    const reject = Effect.fn("Questions.reject")(function* (requestID: QuestionId) {
      const found = yield* Effect.sync(() => dismiss(requestID))
      if (!found) return yield* new NotFoundError({ requestID })
    })

    const listUnsafe = () => Array.from(pending.values(), (entry) => entry.request)

    // Closing (process shutdown) withdraws every open question and its waiter dies with
    // RejectedError, as PermissionV2 declines its asks; later asks die the same way.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        const entries = [...pending.values()]
        if (entries.length === 0) return
        commit(
          store,
          bus,
          (outbox) => {
            const now = Date.now()
            for (const entry of entries) withdraw(entry, outbox, now)
          },
          () => {
            for (const entry of entries) {
              pending.delete(entry.request.id)
              Deferred.doneUnsafe(entry.deferred, Exit.fail(new RejectedError()))
            }
          },
        )
      }),
    )

    return Service.of({
      interruptedAtStart,
      ask,
      reply,
      reject,
      list: () => Effect.sync(listUnsafe),
      listUnsafe,
      forSession: (sessionID) => Effect.sync(() => listUnsafe().filter((request) => request.sessionID === sessionID)),
      get: (id) => Effect.sync(() => pending.get(id)?.request),
    })
  }),
)

/** A plain copy (the caller's objects may be mutated later, and may carry extra keys). */
function copyQuestion(question: QuestionInfo): QuestionInfo {
  return {
    question: question.question,
    header: question.header,
    options: question.options.map((option) => ({ label: option.label, description: option.description })),
    ...(question.multiple !== undefined ? { multiple: question.multiple } : {}),
  }
}
