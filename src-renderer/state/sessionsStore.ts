import { create } from "zustand"
import type { AppEvent } from "@contract/events"
import type { SessionId } from "@contract/ids"
import type { Snapshot } from "@contract/methods"
import type { Session } from "@contract/model"
import { emptyNormalized, replaceAll, upsertAll, type Normalized } from "./normalized"

/** Every session, in creation order (as the snapshot lists them). */
export type SessionsState = Normalized<SessionId, Session>

export const initialSessionsState: SessionsState = emptyNormalized()

const keyOf = (session: Session) => session.id

/** Applies a batch of events; the same object comes back when none of them concerns sessions. */
export function applySessionsEvents<S extends SessionsState>(state: S, events: ReadonlyArray<AppEvent>): S {
  const changed: Array<Session> = []
  for (const event of events) {
    switch (event._tag) {
      case "session.created":
      case "session.updated":
        changed.push(event.session)
        break
      default:
        break
    }
  }
  return changed.length === 0 ? state : upsertAll(state, changed, keyOf)
}

export const applySessionsEvent = <S extends SessionsState>(state: S, event: AppEvent): S =>
  applySessionsEvents(state, [event])

export const loadSessionsSnapshot = <S extends SessionsState>(state: S, snapshot: Snapshot): S =>
  replaceAll(state, snapshot.sessions, keyOf)

export const selectSessionIds = (state: SessionsState) => state.ids
export const selectSessionCount = (state: SessionsState) => state.ids.length
export const selectSession = (id: SessionId) => (state: SessionsState) => state.byId[id]

export interface SessionsStore extends SessionsState {
  readonly applyEvents: (events: ReadonlyArray<AppEvent>) => void
  readonly loadSnapshot: (snapshot: Snapshot) => void
}

export const createSessionsStore = () =>
  create<SessionsStore>()((set) => ({
    ...initialSessionsState,
    applyEvents: (events) => set((state) => applySessionsEvents(state, events)),
    loadSnapshot: (snapshot) => set((state) => loadSessionsSnapshot(state, snapshot)),
  }))

export const useSessionsStore = createSessionsStore()
