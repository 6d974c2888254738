import type { Method } from "@contract/channels"
import type { PayloadOf, SuccessOf } from "@contract/methods"
import { isElectronApi, makeElectronBridge } from "./ElectronBridge"
import { makeWebSocketBridge, readToken, webSocketUrl } from "./WebSocketBridge"

// The renderer's one door to the main process (SG-12). Its type is derived from the contract, so
// a method added to `src-preload/contract/methods.ts` is callable here with no hand-written types.

/** Where the transport stands. `epoch` grows by one every time a connection opens. */
export interface Transport {
  readonly state: "connecting" | "open" | "offline"
  readonly epoch: number
  /** Why the transport is not open, in words a person can act on. */
  readonly problem?: string
}

export interface Bridge {
  /** Calls a contract method: resolves with its success value or throws its decoded tagged error (`err._tag`). */
  readonly invoke: <M extends Method>(method: M, payload: PayloadOf<M>) => Promise<SuccessOf<M>>
  /** Receives each pushed batch, still encoded; `state/connectEvents.ts` is the one listener and decodes it. */
  readonly onEvents: (listener: (batch: unknown) => void) => () => void
  /** The current transport state. */
  readonly transport: () => Transport
  /** Called on every transport change; a new `epoch` means a new connection, so state must be resynced. */
  readonly onTransport: (listener: (transport: Transport) => void) => () => void
}

/** Electron's preload bridge when the page runs in the app, else the headless host's WebSocket. */
export function createBridge(): Bridge {
  const api = (window as { api?: unknown }).api
  if (isElectronApi(api)) return makeElectronBridge(api)
  return makeWebSocketBridge({
    url: webSocketUrl(window.location),
    token: readToken(window.location, window.history, tabStorage()),
  })
}

/** sessionStorage, or a stand-in that forgets on reload where the browser denies storage. */
function tabStorage(): Pick<Storage, "getItem" | "setItem"> {
  try {
    const storage = window.sessionStorage
    storage.getItem("")
    return storage
  } catch {
    const memory = new Map<string, string>()
    return { getItem: (key) => memory.get(key) ?? null, setItem: (key, value) => void memory.set(key, value) }
  }
}
