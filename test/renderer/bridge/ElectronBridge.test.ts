import { Exit, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Methods, type Method } from "@contract/channels"
import { EventBatchJson, exitSchemaOf } from "@contract/wire"
import { isElectronApi, makeElectronBridge, type ElectronApi } from "@renderer/bridge/ElectronBridge"
import { created, info, session, snapshot } from "../support/fixtures"

/**
 * The preload's `window.api` as plain data: answers the methods given with an encoded Exit (the
 * others fail the test if called).
 */
function preloadApi(answers: { readonly [M in Method]?: unknown }) {
  const listeners = new Set<(batch: unknown) => void>()
  const received: Array<[string, unknown]> = []
  const api: ElectronApi = {
    invoke: Object.fromEntries(
      Methods.map((method) => [
        method,
        async (payload: unknown) => {
          received.push([method, payload])
          if (!(method in answers)) throw new Error(`unexpected call to ${method}`)
          return Schema.encodeUnknownSync(exitSchemaOf(method))(Exit.succeed(answers[method]))
        },
      ]),
    ) as ElectronApi["invoke"],
    onEvent: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
  return { api, received, emit: (batch: unknown) => listeners.forEach((listener) => listener(batch)) }
}

describe("ElectronBridge", () => {
  it("recognizes the preload's api only when every contract method is there", () => {
    const { api } = preloadApi({ "app.info": info(), "app.snapshot": snapshot(0) })
    expect(isElectronApi(api)).toBe(true)
    expect(isElectronApi(undefined)).toBe(false)
    expect(isElectronApi({ invoke: {}, onEvent: () => () => {} })).toBe(false)
    expect(isElectronApi({ invoke: api.invoke })).toBe(false)
  })

  it("invokes through window.api and decodes the answer", async () => {
    const { api, received } = preloadApi({ "app.info": info(7), "app.snapshot": snapshot(7, [session(1)]) })
    const bridge = makeElectronBridge(api)
    expect(await bridge.invoke("app.info", undefined)).toEqual(info(7))
    expect((await bridge.invoke("app.snapshot", undefined)).sessions).toEqual([session(1)])
    expect(received.map(([method]) => method)).toEqual(["app.info", "app.snapshot"])
  })

  it("passes event batches through untouched and is open from the start", () => {
    const { api, emit } = preloadApi({ "app.info": info(), "app.snapshot": snapshot(0) })
    const bridge = makeElectronBridge(api)
    const seen: Array<unknown> = []
    const stop = bridge.onEvents((batch) => seen.push(batch))
    const batch = Schema.encodeSync(EventBatchJson)({ events: [created(1, session(1))] })
    emit(batch)
    stop()
    emit(batch)
    expect(seen).toEqual([batch])
    expect(bridge.transport()).toEqual({ state: "open", epoch: 1 })
  })
})
