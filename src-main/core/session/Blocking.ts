import { Context, Effect, Layer } from "effect"
import type { AppEvent } from "@contract/events"
import type { SessionId } from "@contract/ids"
import { EventBus } from "../events/EventBus"
import { AskSources } from "../permission/AskSources"
import { Questions } from "./Questions"
import { Sessions } from "./Sessions"

export * as Blocking from "./Blocking"

/**
 * Keeps `running` and `blocked` in step with what a session waits on: a `running` session becomes
 * `blocked` while any of its permission asks or questions waits for the person, and `running`
 * again once none does. Other statuses are never touched: whoever runs a session's calls (the
 * runner, MCP ingress) sets `running` when work starts and the final status when it ends.
 *
 * It follows the ask and question events but decides from what is pending when it looks (every
 * ask source's asks: live Locations and connected servers; and the open questions), never from a count it keeps: a late or coalesced
 * event cannot leave a session blocked, and an ask answered before it was seen never blocks it.
 * The change itself is a compare-and-set on the session row, so a session that ended meanwhile
 * stays ended.
 */
export interface Interface {
  /** How many asks and questions of the session wait for the person now. */
  readonly waitingUnsafe: (sessionID: SessionId) => number
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/session/Blocking") {}

/** The session an ask or question event concerns, for the events that can change what it waits on. */
export function sessionOf(event: AppEvent): SessionId | undefined {
  switch (event._tag) {
    case "permission.v2.asked":
    case "question.v2.asked":
      return event.request.sessionID
    case "permission.v2.replied":
    case "permission.v2.withdrawn":
    case "question.v2.replied":
    case "question.v2.rejected":
    case "question.v2.withdrawn":
      return event.sessionID
    default:
      return undefined
  }
}

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const bus = yield* EventBus.Service
    const sessions = yield* Sessions.Service
    const asks = yield* AskSources.Service
    const questions = yield* Questions.Service

    const waitingUnsafe = (sessionID: SessionId) =>
      asks.forSessionUnsafe(sessionID).length +
      questions.listUnsafe().filter((request) => request.sessionID === sessionID).length

    const refresh = (sessionID: SessionId) =>
      Effect.suspend(() =>
        sessions.setStatus(sessionID, waitingUnsafe(sessionID) > 0 ? "blocked" : "running", {
          from: ["running", "blocked"],
        }),
      ).pipe(Effect.ignore)

    const subscription = yield* bus.subscribe(() => undefined)
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          const touched = new Set<SessionId>()
          for (const envelope of yield* subscription.takeBatch) {
            const sessionID = sessionOf(envelope.event)
            if (sessionID !== undefined) touched.add(sessionID)
          }
          for (const sessionID of touched) yield* refresh(sessionID)
        }),
      ),
    )

    return Service.of({ waitingUnsafe })
  }),
)
