import { describe, expect, it } from "vitest"
import type { ConnectorInfo } from "@contract/model"
import {
  applyConnectorsEvents,
  initialConnectorsState,
  loadConnectorsSnapshot,
  selectConnector,
  selectTroubledCount,
} from "@renderer/state/connectorsStore"
import { snapshot } from "../support/fixtures"

const connector = (name: string, over: Partial<ConnectorInfo> = {}): ConnectorInfo => ({
  name,
  kind: "opencode",
  url: `http://127.0.0.1:4096`,
  username: null,
  hasPassword: false,
  origin: "ui",
  state: "connected",
  detail: null,
  retryAt: null,
  since: 1,
  version: "1.18.33",
  pending: 0,
  ...over,
})

describe("connectorsStore", () => {
  it("loads the snapshot's connections in order and replaces one on connector.updated", () => {
    const loaded = loadConnectorsSnapshot(initialConnectorsState, {
      ...snapshot(1),
      connectors: [connector("a"), connector("b")],
    })
    expect(loaded.ids).toEqual(["a", "b"])
    const down = applyConnectorsEvents(loaded, [
      { _tag: "connector.updated", connector: connector("b", { state: "reconnecting", detail: "gone" }) },
    ])
    expect(down.ids).toEqual(["a", "b"])
    expect(selectConnector("b")(down)?.state).toBe("reconnecting")
    expect(selectTroubledCount(down)).toBe(1)
  })

  it("appends a new connection, drops a removed one, and ignores other events", () => {
    const added = applyConnectorsEvents(initialConnectorsState, [
      { _tag: "connector.updated", connector: connector("a") },
      { _tag: "connector.updated", connector: connector("b") },
      { _tag: "connector.removed", name: "a" },
    ])
    expect(added.ids).toEqual(["b"])
    expect(selectConnector("a")(added)).toBeUndefined()
    expect(applyConnectorsEvents(added, [{ _tag: "connector.removed", name: "zzz" }])).toBe(added)
    expect(applyConnectorsEvents(added, [{ _tag: "connector.updated", connector: connector("b") }])).toBe(added)
  })
})
