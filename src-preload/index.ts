import { contextBridge, ipcRenderer } from "electron"
import { EventChannel, Methods, channelOf, type Method } from "./contract/channels"

// The sandboxed preload (SG-11): one generic bridge built by looping over the contract's methods.
// It passes payloads and encoded answers through untouched; decoding lives in the renderer's
// bridge and validation in main. Never expose ipcRenderer itself, nor its event objects
// (`event.sender` is ipcRenderer).

/** What `window.api` holds; the renderer's ElectronBridge reads exactly this. */
export interface PreloadApi {
  /** One function per contract method: sends the (encoded) payload, resolves with the encoded Exit. */
  readonly invoke: { readonly [M in Method]: (payload: unknown) => Promise<unknown> }
  /** Subscribes to batches of push events (encoded EventBatch); returns the unsubscribe function. */
  readonly onEvent: (listener: (batch: unknown) => void) => () => void
}

/** The part of Electron's `ipcRenderer` the bridge uses. */
export interface RendererIpc {
  invoke(channel: string, ...args: Array<unknown>): Promise<unknown>
  on(channel: string, listener: (event: unknown, ...args: Array<unknown>) => void): unknown
  removeListener(channel: string, listener: (event: unknown, ...args: Array<unknown>) => void): unknown
}

export function buildApi(ipc: RendererIpc): PreloadApi {
  const invoke = Object.fromEntries(
    Methods.map((method) => [method, (payload: unknown) => ipc.invoke(channelOf(method), payload)]),
  ) as PreloadApi["invoke"]
  const onEvent = (listener: (batch: unknown) => void) => {
    const forward = (_event: unknown, batch: unknown) => listener(batch)
    ipc.on(EventChannel, forward)
    return () => {
      ipc.removeListener(EventChannel, forward)
    }
  }
  return { invoke, onEvent }
}

contextBridge.exposeInMainWorld("api", buildApi(ipcRenderer))
