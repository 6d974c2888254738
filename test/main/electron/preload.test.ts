import { describe, expect, it, vi } from "vitest"
import { EventChannel, Methods, channelOf } from "@contract/channels"

// The preload runs its exposeInMainWorld call on import, so electron is mocked (allowed only here).

type Listener = (event: unknown, ...args: Array<unknown>) => void

const exposed: Array<readonly [string, unknown]> = []
const listeners = new Map<string, Set<Listener>>()
const invoked: Array<readonly [string, unknown]> = []

const ipcRenderer = {
  invoke: (channel: string, ...args: Array<unknown>) => {
    invoked.push([channel, args[0]])
    return Promise.resolve({ answeredOn: channel })
  },
  on: (channel: string, listener: Listener) => {
    const set = listeners.get(channel) ?? new Set()
    set.add(listener)
    listeners.set(channel, set)
    return ipcRenderer
  },
  removeListener: (channel: string, listener: Listener) => {
    listeners.get(channel)?.delete(listener)
    return ipcRenderer
  },
}

vi.mock("electron", () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.push([key, api]) },
  ipcRenderer,
}))

await import("../../../src-preload/index")

const api = () =>
  exposed[0]![1] as {
    invoke: Record<string, (payload: unknown) => Promise<unknown>>
    onEvent: (listener: (batch: unknown) => void) => () => void
  }

describe("preload", () => {
  it("exposes exactly one global, window.api, with the reviewed shape", () => {
    expect(exposed.map(([key]) => key)).toEqual(["api"])
    expect(Object.keys(api()).sort()).toMatchInlineSnapshot(`
      [
        "invoke",
        "onEvent",
      ]
    `)
    expect(Object.keys(api().invoke).sort()).toMatchInlineSnapshot(`
      [
        "agents.list",
        "app.info",
        "app.snapshot",
        "approvals.add",
        "approvals.export",
        "approvals.list",
        "approvals.remove",
        "approvals.update",
        "connectors.add",
        "connectors.list",
        "connectors.remove",
        "decisions.export",
        "decisions.list",
        "outputs.delete",
        "outputs.list",
        "outputs.read",
        "permission.rejectSession",
        "permission.reply",
        "permission.replyMany",
        "question.reject",
        "question.reply",
        "sessions.get",
        "sessions.list",
        "sessions.start",
        "sessions.stop",
      ]
    `)
  })

  it("has one invoke function per contract method and nothing else", () => {
    expect(Object.keys(api().invoke).sort()).toEqual([...Methods].sort())
    for (const value of Object.values(api().invoke)) expect(typeof value).toBe("function")
  })

  it("passes the payload through untouched on the method's channel", async () => {
    invoked.length = 0
    const payload = { any: ["shape", 1] }
    for (const method of Methods) {
      await expect(api().invoke[method]!(payload)).resolves.toEqual({ answeredOn: channelOf(method) })
    }
    expect(invoked).toEqual(Methods.map((method) => [channelOf(method), payload]))
  })

  it("forwards event batches without the IPC event object, until unsubscribed", () => {
    const received: Array<Array<unknown>> = []
    const unsubscribe = api().onEvent((...args) => received.push(args))
    const emit = (batch: unknown) => {
      for (const listener of listeners.get(EventChannel) ?? []) listener({ sender: ipcRenderer }, batch)
    }
    emit({ events: [1] })
    unsubscribe()
    emit({ events: [2] })
    expect(received).toEqual([[{ events: [1] }]])
    expect(listeners.get(EventChannel)?.size).toBe(0)
  })

  it("never exposes ipcRenderer or any of its functions", () => {
    const seen = new Set<unknown>()
    const walk = (value: unknown) => {
      if (value === null || (typeof value !== "object" && typeof value !== "function") || seen.has(value)) return
      seen.add(value)
      if (typeof value === "object") for (const child of Object.values(value)) walk(child)
    }
    walk(api())
    for (const value of [ipcRenderer, ipcRenderer.invoke, ipcRenderer.on, ipcRenderer.removeListener]) {
      expect(seen.has(value)).toBe(false)
    }
  })
})
