import { Methods, type Method } from "@contract/channels"
import type { Bridge, Transport } from "./Bridge"
import { decodeExit, encodePayload } from "./codec"

/**
 * What the sandboxed preload exposes as `window.api` (SG-11): one generic invoke per contract
 * method, answering with the encoded Exit, and one event channel carrying encoded batches.
 */
export interface ElectronApi {
  readonly invoke: { readonly [M in Method]: (payload: unknown) => Promise<unknown> }
  readonly onEvent: (listener: (batch: unknown) => void) => () => void
}

export function isElectronApi(value: unknown): value is ElectronApi {
  if (typeof value !== "object" || value === null) return false
  const api = value as { invoke?: unknown; onEvent?: unknown }
  if (typeof api.onEvent !== "function" || typeof api.invoke !== "object" || api.invoke === null) return false
  const invoke = api.invoke as Record<string, unknown>
  return Methods.every((method) => typeof invoke[method] === "function")
}

// IPC lives as long as the window: the transport is open from the start and never reconnects.
const open: Transport = { state: "open", epoch: 1 }

export function makeElectronBridge(api: ElectronApi): Bridge {
  return {
    invoke: async (method, payload) => decodeExit(method, await api.invoke[method](encodePayload(method, payload))),
    onEvents: (listener) => api.onEvent(listener),
    transport: () => open,
    onTransport: () => () => {},
  }
}
