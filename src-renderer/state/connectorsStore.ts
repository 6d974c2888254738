import { create } from "zustand"
import type { AppEvent } from "@contract/events"
import type { Snapshot } from "@contract/methods"
import type { ConnectorInfo } from "@contract/model"
import { emptyNormalized, replaceAll, upsertAll, type Normalized } from "./normalized"

/** Every supervised agent server by name, config.jsonc's first, then the added ones in order. */
export type ConnectorsState = Normalized<string, ConnectorInfo>

export const initialConnectorsState: ConnectorsState = emptyNormalized()

const keyOf = (connector: ConnectorInfo) => connector.name

function without<S extends ConnectorsState>(state: S, name: string): S {
  if (!(name in state.byId)) return state
  const { [name]: _, ...byId } = state.byId
  return { ...state, ids: state.ids.filter((id) => id !== name), byId }
}

/** Applies a batch of events; the same object comes back when none of them concerns connections. */
export function applyConnectorsEvents<S extends ConnectorsState>(state: S, events: ReadonlyArray<AppEvent>): S {
  let next = state
  for (const event of events) {
    if (event._tag === "connector.updated") next = upsertAll(next, [event.connector], keyOf)
    else if (event._tag === "connector.removed") next = without(next, event.name)
  }
  return next
}

export const loadConnectorsSnapshot = <S extends ConnectorsState>(state: S, snapshot: Snapshot): S =>
  replaceAll(state, snapshot.connectors, keyOf)

export const selectConnectorNames = (state: ConnectorsState) => state.ids
export const selectConnector = (name: string) => (state: ConnectorsState) => state.byId[name]
/** How many connections are not connected now (for the panel's summary). */
export const selectTroubledCount = (state: ConnectorsState) =>
  state.ids.filter((name) => state.byId[name]?.state !== "connected").length

export interface ConnectorsStore extends ConnectorsState {
  readonly applyEvents: (events: ReadonlyArray<AppEvent>) => void
  readonly loadSnapshot: (snapshot: Snapshot) => void
}

export const createConnectorsStore = () =>
  create<ConnectorsStore>()((set) => ({
    ...initialConnectorsState,
    applyEvents: (events) => set((state) => applyConnectorsEvents(state, events)),
    loadSnapshot: (snapshot) => set((state) => loadConnectorsSnapshot(state, snapshot)),
  }))

export const useConnectorsStore = createConnectorsStore()
