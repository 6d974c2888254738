import { afterEach, describe, expect, it } from "vitest"
import { DisconnectedError } from "@renderer/bridge/codec"
import {
  backoffDelay,
  makeWebSocketBridge,
  noTokenProblem,
  readToken,
  tokenStorageKey,
  webSocketUrl,
} from "@renderer/bridge/WebSocketBridge"

const token = "0123456789abcdef".repeat(4)

afterEach(() => {
  window.sessionStorage.clear()
  window.history.replaceState(null, "", "/")
})

describe("WebSocketBridge", () => {
  it("takes the token out of the address bar into this tab's sessionStorage", () => {
    window.history.replaceState(null, "", `/#token=${token}`)
    const historyLength = window.history.length
    expect(readToken(window.location, window.history, window.sessionStorage)).toBe(token)
    expect(window.location.href).not.toContain("token")
    expect(window.location.hash).toBe("")
    expect(window.history.length).toBe(historyLength)
    expect(window.sessionStorage.getItem(tokenStorageKey)).toBe(token)
    // A reload of the tab finds it again.
    expect(readToken(window.location, window.history, window.sessionStorage)).toBe(token)
  })

  it("keeps other fragment parameters and drops a malformed token", () => {
    window.history.replaceState(null, "", "/?q=1#view=inbox&token=not-a-token")
    expect(readToken(window.location, window.history, window.sessionStorage)).toBeUndefined()
    expect(window.location.search).toBe("?q=1")
    expect(window.location.hash).toBe("#view=inbox")
    expect(window.sessionStorage.getItem(tokenStorageKey)).toBeNull()
  })

  it("connects to /ws on the page's own host", () => {
    expect(webSocketUrl({ protocol: "http:", host: "127.0.0.1:4000" })).toBe("ws://127.0.0.1:4000/ws")
    expect(webSocketUrl({ protocol: "https:", host: "localhost:4000" })).toBe("wss://localhost:4000/ws")
  })

  it("backs off by doubling, within bounds, with jitter", () => {
    const backoff = { initialMs: 250, maxMs: 8000 }
    expect(backoffDelay(1, backoff, () => 0.5)).toBe(250)
    expect(backoffDelay(3, backoff, () => 0.5)).toBe(1000)
    expect(backoffDelay(20, backoff, () => 0.5)).toBe(8000)
    expect(backoffDelay(1, backoff, () => 0)).toBe(187.5)
    expect(backoffDelay(20, backoff, () => 1)).toBe(10000)
  })

  it("without a token stays offline, says why, and refuses calls at once", async () => {
    const bridge = makeWebSocketBridge({ url: "ws://127.0.0.1:1/ws", token: undefined })
    expect(bridge.transport()).toEqual({ state: "offline", epoch: 0, problem: noTokenProblem })
    await expect(bridge.invoke("app.info", undefined)).rejects.toBeInstanceOf(DisconnectedError)
    bridge.close()
  })
})
