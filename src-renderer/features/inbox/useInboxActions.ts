import { useMemo } from "react"
import type { PermissionRequestId, QuestionId, SessionId } from "@contract/ids"
import type { PermissionReply, QuestionAnswer } from "@contract/model"
import type { Bridge } from "../../bridge/Bridge"
import { useBridge } from "../../bridge/BridgeContext"
import { errorMessage } from "../../lib/errors"
import { useInboxStore, type InboxItemId } from "../../state/inboxStore"

// Every answer the inbox sends, each for exactly the ids it names. The card disappears when the
// core's event says the ask ended (everywhere at once); a "not found" answer removes it at once;
// any other failure stays on the card, so nothing is silently dropped.

const tagOf = (error: unknown) =>
  typeof error === "object" && error !== null && "_tag" in error ? String((error as { _tag: unknown })._tag) : undefined

const reasonOf = (error: unknown) => {
  if (tagOf(error) === "Contract.InvalidRequestError" && error instanceof Error) return error.message
  return `Not sent: ${errorMessage(error)}`
}

const isGone = (error: unknown) => {
  const tag = tagOf(error)
  return tag === "PermissionV2.NotFoundError" || tag === "Questions.NotFoundError"
}

const withMessage = (message: string | undefined) => (message && message.trim() !== "" ? { message } : {})

export interface InboxActions {
  /** Answers one ask. `message` (with `reject`) is feedback the model reads. */
  readonly reply: (id: PermissionRequestId, reply: PermissionReply, message?: string) => Promise<void>
  /** The same answer to each of `ids`. */
  readonly replyMany: (
    ids: ReadonlyArray<PermissionRequestId>,
    reply: PermissionReply,
    message?: string,
  ) => Promise<void>
  /** Rejects every pending ask of a session (`ids`: the ones shown, marked as sending meanwhile). */
  readonly rejectSession: (sessionID: SessionId, ids: ReadonlyArray<InboxItemId>, message?: string) => Promise<void>
  readonly answerQuestion: (id: QuestionId, answers: ReadonlyArray<QuestionAnswer>) => Promise<void>
  readonly dismissQuestion: (id: QuestionId) => Promise<void>
}

/** The inbox's answers over any bridge (exported for tests). */
export function makeInboxActions(bridge: Bridge, store = useInboxStore): InboxActions {
  const state = () => store.getState()
  // On success the cards keep their "sending" mark until the core's events remove them; the answer
  // and the events travel separately, and a card must not look answerable in between.
  const settle = (ids: ReadonlyArray<InboxItemId>, call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (error: unknown) => (isGone(error) ? state().answerGone(ids) : state().answerFailed(ids, reasonOf(error))),
    )
  return {
    reply: (id, reply, message) => {
      state().startSending([id])
      return settle([id], bridge.invoke("permission.reply", { requestID: id, reply, ...withMessage(message) }))
    },
    replyMany: (ids, reply, message) => {
      if (ids.length === 0) return Promise.resolve()
      state().startSending(ids)
      state().clearSelection()
      return bridge.invoke("permission.replyMany", { requestIDs: [...ids], reply, ...withMessage(message) }).then(
        (result) => {
          const gone = result.results.filter((entry) => entry.outcome === "gone").map((entry) => entry.requestID)
          if (gone.length > 0) state().answerGone(gone)
          // Asks an agent server could not be told about are still pending: say so on their cards.
          for (const entry of result.results)
            if (entry.outcome === "failed") state().answerFailed([entry.requestID], `Not sent: ${entry.reason ?? "?"}`)
        },
        (error: unknown) => state().answerFailed(ids, reasonOf(error)),
      )
    },
    rejectSession: (sessionID, ids, message) => {
      state().startSending(ids)
      state().closeComposer()
      return settle(ids, bridge.invoke("permission.rejectSession", { sessionID, ...withMessage(message) }))
    },
    answerQuestion: (id, answers) => {
      state().startSending([id])
      return settle(
        [id],
        bridge.invoke("question.reply", { requestID: id, answers: answers.map((labels) => [...labels]) }),
      )
    },
    dismissQuestion: (id) => {
      state().startSending([id])
      return settle([id], bridge.invoke("question.reject", { requestID: id }))
    },
  }
}

export function useInboxActions(): InboxActions {
  const bridge = useBridge()
  return useMemo(() => makeInboxActions(bridge), [bridge])
}
