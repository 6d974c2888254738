import { Schema } from "effect"
import type { AppEvent, Envelope } from "@contract/events"
import type { AppInfo, Snapshot } from "@contract/methods"
import { EventBatchJson } from "@contract/wire"
import type { Bridge, Transport } from "../bridge/Bridge"
import { useApprovalsStore } from "./approvalsStore"
import { useConnectionStore } from "./connectionStore"
import { useConnectorsStore } from "./connectorsStore"
import { useInboxStore } from "./inboxStore"
import { useOutputsStore } from "./outputsStore"
import { useProjectsStore } from "./projectsStore"
import { useSessionDetailStore } from "./sessionDetailStore"
import { useSessionsStore } from "./sessionsStore"
import { errorMessage } from "../lib/errors"

// The renderer's one event subscriber (SG-13). It loads `app.snapshot`, then applies exactly the
// events after the snapshot's `seq`, in order. Batches that arrive in the same tick are queued and
// handed to each store as one array, so every store does one `set` per batch. A gap in the
// sequence, an undecodable batch or a new connection (reconnect, restarted host) means something
// may have been missed: the stores are reloaded from a fresh snapshot instead.

/** A store fed by the event stream. */
export interface DomainStore {
  readonly getState: () => {
    readonly loadSnapshot: (snapshot: Snapshot) => void
    readonly applyEvents: (events: ReadonlyArray<AppEvent>) => void
  }
}

export interface ConnectionSink {
  readonly getState: () => {
    readonly transportChanged: (transport: Transport) => void
    readonly syncing: () => void
    readonly live: (info: AppInfo) => void
    readonly syncFailed: (problem: string) => void
  }
}

export interface Stores {
  readonly domains: ReadonlyArray<DomainStore>
  readonly connection: ConnectionSink
}

/** The app's stores; every domain store that follows events is listed here. */
export const appStores: Stores = {
  domains: [
    useProjectsStore,
    useSessionsStore,
    useInboxStore,
    useApprovalsStore,
    useOutputsStore,
    useSessionDetailStore,
    useConnectorsStore,
  ],
  connection: useConnectionStore,
}

export interface ConnectOptions {
  /** Wait before asking for a snapshot again after a failed attempt on a live connection. */
  readonly retryMs?: number
}

const decodeBatch = Schema.decodeUnknownExit(EventBatchJson)

/** Starts feeding the stores from the bridge; returns the function that stops it. */
export function connectEvents(bridge: Bridge, stores: Stores = appStores, options: ConnectOptions = {}): () => void {
  const retryMs = options.retryMs ?? 1000
  /** The last applied sequence number; `null` while a snapshot is loading (events wait in `incoming`). */
  let lastSeq: number | null = null
  let incoming: Array<Envelope> = []
  let flushQueued = false
  /** Bumped by every resync, so a late answer to an older one is ignored. */
  let generation = 0
  let syncedEpoch: number | undefined
  let retryTimer: ReturnType<typeof setTimeout> | undefined
  let stopped = false

  const flush = () => {
    flushQueued = false
    if (stopped || lastSeq === null || incoming.length === 0) return
    const envelopes = incoming
    incoming = []
    const accepted: Array<AppEvent> = []
    let gap = false
    for (const envelope of envelopes) {
      if (envelope.seq <= lastSeq) continue
      if (envelope.seq !== lastSeq + 1) {
        gap = true
        break
      }
      accepted.push(envelope.event)
      lastSeq = envelope.seq
    }
    if (accepted.length > 0) for (const store of stores.domains) store.getState().applyEvents(accepted)
    if (gap) resync()
  }

  const schedule = () => {
    if (flushQueued) return
    flushQueued = true
    queueMicrotask(flush)
  }

  const resync = () => {
    const current = ++generation
    lastSeq = null
    clearTimeout(retryTimer)
    stores.connection.getState().syncing()
    Promise.all([bridge.invoke("app.snapshot", undefined), bridge.invoke("app.info", undefined)]).then(
      ([snapshot, info]) => {
        if (stopped || current !== generation) return
        for (const store of stores.domains) store.getState().loadSnapshot(snapshot)
        lastSeq = snapshot.seq
        stores.connection.getState().live(info)
        flush()
      },
      (error: unknown) => {
        if (stopped || current !== generation) return
        // Not connected: the next open connection starts a resync by itself.
        if (bridge.transport().state !== "open") return
        stores.connection.getState().syncFailed(`Cannot load Gatehouse's state (${errorMessage(error)}). Retrying…`)
        retryTimer = setTimeout(() => current === generation && resync(), retryMs)
      },
    )
  }

  const onBatch = (raw: unknown) => {
    if (stopped) return
    const decoded = decodeBatch(raw)
    if (decoded._tag === "Failure") {
      console.error("Gatehouse: an event batch does not match the contract; reloading state", decoded.cause)
      incoming = []
      resync()
      return
    }
    for (const envelope of decoded.value.events) incoming.push(envelope)
    schedule()
  }

  const onTransport = (transport: Transport) => {
    if (stopped) return
    stores.connection.getState().transportChanged(transport)
    if (transport.state !== "open") {
      // Nothing more can arrive on the old connection; its answers are already void.
      generation++
      lastSeq = null
      clearTimeout(retryTimer)
      return
    }
    if (transport.epoch === syncedEpoch) return
    syncedEpoch = transport.epoch
    // Sequence numbers restart with a restarted host: never mix batches of two connections.
    incoming = []
    resync()
  }

  const offEvents = bridge.onEvents(onBatch)
  const offTransport = bridge.onTransport(onTransport)
  onTransport(bridge.transport())

  return () => {
    stopped = true
    clearTimeout(retryTimer)
    offEvents()
    offTransport()
  }
}
