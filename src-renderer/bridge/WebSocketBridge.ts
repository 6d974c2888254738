import type { Bridge, Transport } from "./Bridge"
import { decodeExit, DisconnectedError, encodePayload } from "./codec"

// The contract over the headless host's WebSocket. The supervisor token arrives in the URL
// fragment (which never reaches a server or a Referer), moves to sessionStorage (this tab only,
// survives a reload) and leaves the address bar at once. It is sent as a WebSocket subprotocol,
// because browsers cannot set headers on a WebSocket and a query string would end up in logs.

export const tokenStorageKey = "gatehouse.token"
const tokenPattern = /^[0-9a-f]{64}$/

/** Shown when the page was opened without the link the host printed. */
export const noTokenProblem =
  "This page has no access token. Open the link Gatehouse printed when it started (it ends with #token=…)."

/** Where the host's contract socket lives, on the same host and port as the page. */
export const webSocketUrl = (location: Pick<Location, "protocol" | "host">) =>
  `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`

/**
 * Takes `#token=…` out of the address bar into sessionStorage and returns the token (or the one a
 * reload of this tab kept). A malformed token is ignored, as if there were none.
 */
export function readToken(
  location: Pick<Location, "hash" | "pathname" | "search">,
  history: Pick<History, "replaceState" | "state">,
  storage: Pick<Storage, "getItem" | "setItem">,
): string | undefined {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""))
  const fromUrl = fragment.get("token")
  if (fromUrl !== null) {
    fragment.delete("token")
    const rest = fragment.toString()
    history.replaceState(history.state, "", `${location.pathname}${location.search}${rest ? `#${rest}` : ""}`)
    if (tokenPattern.test(fromUrl)) {
      storage.setItem(tokenStorageKey, fromUrl)
      return fromUrl
    }
  }
  const stored = storage.getItem(tokenStorageKey)
  return stored !== null && tokenPattern.test(stored) ? stored : undefined
}

export interface Backoff {
  readonly initialMs: number
  readonly maxMs: number
}

export interface WebSocketBridgeOptions {
  readonly url: string
  readonly token: string | undefined
  readonly backoff?: Backoff
}

/** Delay before reconnect attempt `attempt` (1-based): doubling, capped, with jitter against herds. */
export const backoffDelay = (attempt: number, backoff: Backoff, random = Math.random) =>
  Math.min(backoff.maxMs, backoff.initialMs * 2 ** (attempt - 1)) * (0.75 + 0.5 * random())

interface Pending {
  readonly method: string
  readonly resolve: (exit: unknown) => void
  readonly reject: (error: unknown) => void
}

export function makeWebSocketBridge(options: WebSocketBridgeOptions): Bridge & { readonly close: () => void } {
  const backoff = options.backoff ?? { initialMs: 250, maxMs: 8000 }
  const eventListeners = new Set<(batch: unknown) => void>()
  const transportListeners = new Set<(transport: Transport) => void>()
  const pending = new Map<number, Pending>()
  let transport: Transport = options.token
    ? { state: "connecting", epoch: 0 }
    : { state: "offline", epoch: 0, problem: noTokenProblem }
  let socket: WebSocket | undefined
  let nextId = 1
  let failures = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  let closed = false

  const setTransport = (next: Transport) => {
    transport = next
    for (const listener of transportListeners) listener(next)
  }

  const failPending = () => {
    for (const [id, call] of pending) {
      pending.delete(id)
      call.reject(new DisconnectedError(call.method))
    }
  }

  const onMessage = (data: unknown) => {
    if (typeof data !== "string") return
    let message: { type?: unknown; id?: unknown; exit?: unknown; batch?: unknown }
    try {
      message = JSON.parse(data) as typeof message
    } catch {
      return
    }
    if (message.type === "events") {
      for (const listener of eventListeners) listener(message.batch)
    } else if (message.type === "result" && typeof message.id === "number") {
      const call = pending.get(message.id)
      pending.delete(message.id)
      call?.resolve(message.exit)
    }
  }

  const connect = (token: string) => {
    if (closed) return
    if (transport.state !== "connecting") setTransport({ state: "connecting", epoch: transport.epoch })
    const ws = new WebSocket(options.url, ["gatehouse", `bearer.${token}`])
    socket = ws
    ws.onopen = () => {
      failures = 0
      setTransport({ state: "open", epoch: transport.epoch + 1 })
    }
    ws.onmessage = (event) => onMessage(event.data)
    // A refused upgrade (wrong token, foreign Host) and a dead server look the same to a page.
    ws.onclose = () => {
      if (socket === ws) socket = undefined
      failPending()
      if (closed) return
      failures += 1
      const problem =
        failures > 3
          ? "Cannot reach Gatehouse. Is it still running? If it printed a new link, open that one. Retrying…"
          : "Connection to Gatehouse lost. Reconnecting…"
      setTransport({ state: "offline", epoch: transport.epoch, problem })
      timer = setTimeout(() => connect(token), backoffDelay(failures, backoff))
    }
  }

  if (options.token) connect(options.token)

  return {
    invoke: (method, payload) => {
      const ws = socket
      if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.reject(new DisconnectedError(method))
      const id = nextId++
      return new Promise<unknown>((resolve, reject) => {
        pending.set(id, { method, resolve, reject })
        ws.send(JSON.stringify({ id, method, payload: encodePayload(method, payload) }))
      }).then((exit) => decodeExit(method, exit))
    },
    onEvents: (listener) => {
      eventListeners.add(listener)
      return () => eventListeners.delete(listener)
    },
    transport: () => transport,
    onTransport: (listener) => {
      transportListeners.add(listener)
      return () => transportListeners.delete(listener)
    },
    close: () => {
      closed = true
      clearTimeout(timer)
      socket?.close()
      failPending()
    },
  }
}
