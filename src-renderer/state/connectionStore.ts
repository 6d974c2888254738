import { create } from "zustand"
import type { AppInfo } from "@contract/methods"
import type { Transport } from "../bridge/Bridge"

/** What the connection indicator shows: `live` only once the state is loaded and events flow. */
export type Indicator = "connecting" | "live" | "offline"

export interface ConnectionState {
  readonly indicator: Indicator
  /** Why the UI is not live, for the person; `null` when there is nothing to say. */
  readonly problem: string | null
  /** From `app.info` on the latest successful sync. */
  readonly info: AppInfo | null
}

export const initialConnectionState: ConnectionState = { indicator: "connecting", problem: null, info: null }

function update<S extends ConnectionState>(state: S, indicator: Indicator, problem: string | null): S {
  return state.indicator === indicator && state.problem === problem ? state : { ...state, indicator, problem }
}

/** An open transport is not live yet: the snapshot still has to load. */
export const applyTransport = <S extends ConnectionState>(state: S, transport: Transport): S =>
  update(state, transport.state === "offline" ? "offline" : "connecting", transport.problem ?? null)

export const markSyncing = <S extends ConnectionState>(state: S): S => update(state, "connecting", state.problem)

export const markLive = <S extends ConnectionState>(state: S, info: AppInfo): S => {
  const next = update(state, "live", null)
  return next.info === info ? next : { ...next, info }
}

export const markSyncFailed = <S extends ConnectionState>(state: S, problem: string): S =>
  update(state, "connecting", problem)

export const selectIndicator = (state: ConnectionState) => state.indicator
export const selectProblem = (state: ConnectionState) => state.problem
export const selectInfo = (state: ConnectionState) => state.info

export interface ConnectionStore extends ConnectionState {
  readonly transportChanged: (transport: Transport) => void
  readonly syncing: () => void
  readonly live: (info: AppInfo) => void
  readonly syncFailed: (problem: string) => void
}

export const createConnectionStore = () =>
  create<ConnectionStore>()((set) => ({
    ...initialConnectionState,
    transportChanged: (transport) => set((state) => applyTransport(state, transport)),
    syncing: () => set((state) => markSyncing(state)),
    live: (info) => set((state) => markLive(state, info)),
    syncFailed: (problem) => set((state) => markSyncFailed(state, problem)),
  }))

export const useConnectionStore = createConnectionStore()
