import { Schema } from "effect"
import type { Envelope } from "@contract/events"
import type { AppInfo, Snapshot } from "@contract/methods"
import { EventBatchJson } from "@contract/wire"
import type { Bridge, Transport } from "@renderer/bridge/Bridge"

const encodeBatch = Schema.encodeSync(EventBatchJson)

/**
 * An in-memory bridge (SG-12) that plays the main process: it answers `app.snapshot` and
 * `app.info` from fields the test sets, pushes encoded batches, and changes the transport.
 */
export function memoryBridge(initial: { snapshot: Snapshot; info: AppInfo; transport?: Transport }) {
  let current = initial.snapshot
  let info = initial.info
  let transport: Transport = initial.transport ?? { state: "open", epoch: 1 }
  let failNext = 0
  let held: Array<() => void> | undefined
  const eventListeners = new Set<(batch: unknown) => void>()
  const transportListeners = new Set<(transport: Transport) => void>()
  const calls: Array<string> = []

  const answer = <A>(value: () => A): Promise<A> => {
    if (failNext > 0) {
      failNext--
      return Promise.reject(new Error("snapshot unavailable"))
    }
    if (held) return new Promise<A>((resolve) => held!.push(() => resolve(value())))
    return Promise.resolve(value())
  }

  const bridge: Bridge = {
    invoke: ((method: string) => {
      calls.push(method)
      return method === "app.snapshot" ? answer(() => current) : answer(() => info)
    }) as Bridge["invoke"],
    onEvents: (listener) => {
      eventListeners.add(listener)
      return () => eventListeners.delete(listener)
    },
    transport: () => transport,
    onTransport: (listener) => {
      transportListeners.add(listener)
      return () => transportListeners.delete(listener)
    },
  }

  return {
    bridge,
    calls,
    setSnapshot: (next: Snapshot) => (current = next),
    setInfo: (next: AppInfo) => (info = next),
    /** Pushes one batch of envelopes, encoded as the main process sends it. */
    push: (...events: ReadonlyArray<Envelope>) => {
      const batch = encodeBatch({ events })
      for (const listener of eventListeners) listener(batch)
    },
    pushRaw: (batch: unknown) => {
      for (const listener of eventListeners) listener(batch)
    },
    setTransport: (next: Transport) => {
      transport = next
      for (const listener of transportListeners) listener(next)
    },
    /** Makes the next `count` calls fail. */
    failNext: (count: number) => (failNext = count),
    /** Holds answers until `release()`: events can be pushed while a snapshot is loading. */
    hold: () => (held = []),
    release: () => {
      const pending = held ?? []
      held = undefined
      for (const resolve of pending) resolve()
    },
  }
}
