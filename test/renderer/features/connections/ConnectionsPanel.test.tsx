import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { ConnectorConflictError } from "@contract/methods"
import type { ConnectorInfo } from "@contract/model"
import { ConnectionsPanel } from "@renderer/features/connections/ConnectionsPanel"
import { initialConnectorsState, useConnectorsStore } from "@renderer/state/connectorsStore"
import { allByTestId, byTestId, click, flush, render, submit, typeInto } from "../../support/render"
import { scriptedBridge, type Answers } from "../../support/scriptedBridge"

const info = (name: string, over: Partial<ConnectorInfo> = {}): ConnectorInfo => ({
  name,
  kind: "opencode",
  url: "http://127.0.0.1:4096",
  username: null,
  hasPassword: false,
  origin: "ui",
  state: "connected",
  detail: null,
  retryAt: null,
  since: 1,
  version: "1.18.33",
  pending: 2,
  ...over,
})

let mounted: ReturnType<typeof render> | undefined

function mount(connectors: ReadonlyArray<ConnectorInfo>, answers: Answers = {}) {
  useConnectorsStore.setState({ ...initialConnectorsState })
  useConnectorsStore.getState().applyEvents(connectors.map((connector) => ({ _tag: "connector.updated", connector })))
  const scripted = scriptedBridge(answers)
  mounted = render(<ConnectionsPanel />, scripted.bridge)
  return { ...scripted, container: mounted.container }
}

beforeEach(() => useConnectorsStore.setState({ ...initialConnectorsState }))
afterEach(() => {
  mounted?.unmount()
  mounted = undefined
})

describe("ConnectionsPanel", () => {
  it("shows each server's state: connected with its version and waiting asks, or what went wrong", () => {
    const { container } = mount([
      info("laptop"),
      info("ci", { state: "unauthorized", detail: "The server refused the user name or password (HTTP 401)" }),
      info("cfg", { origin: "config", state: "unreachable", detail: "Connection refused", retryAt: Date.now() + 5000 }),
    ])
    const rows = allByTestId(container, "connection")
    expect(rows.map((row) => [row.dataset.name, row.dataset.state])).toEqual([
      ["laptop", "connected"],
      ["ci", "unauthorized"],
      ["cfg", "unreachable"],
    ])
    expect(byTestId(rows[0]!, "connection-summary")?.textContent).toBe("OpenCode 1.18.33 · 2 waiting")
    expect(byTestId(rows[1]!, "connection-state")?.textContent).toBe("Password refused")
    expect(byTestId(rows[2]!, "connection-detail")?.textContent).toMatch(/Connection refused \(retrying in [45]s\)/)
    // A configured server is changed in config.jsonc, not here.
    expect(byTestId(rows[2]!, "connection-remove")).toBeNull()
    expect(byTestId(rows[0]!, "connection-remove")).not.toBeNull()
  })

  it("adds a server with its password and closes the form", async () => {
    const { container, callsOf } = mount([], { "connectors.add": (payload) => info(payload.name ?? "x") })
    expect(byTestId(container, "connections-empty")).not.toBeNull()
    click(byTestId(container, "connection-add-open"))
    typeInto(byTestId(container, "connection-add-url") as HTMLInputElement, " http://127.0.0.1:4096 ")
    typeInto(byTestId(container, "connection-add-name") as HTMLInputElement, "laptop")
    typeInto(byTestId(container, "connection-add-password") as HTMLInputElement, "s3cret")
    submit(byTestId(container, "connection-add-form"))
    await flush()
    expect(callsOf("connectors.add").map((call) => call.payload)).toEqual([
      { url: "http://127.0.0.1:4096", name: "laptop", password: "s3cret" },
    ])
    expect(byTestId(container, "connection-add-form")).toBeNull()
  })

  it("checks the address before sending, and shows the server's refusal beside the field it concerns", async () => {
    const { container, callsOf } = mount([info("laptop")], {
      "connectors.add": () => {
        throw new ConnectorConflictError({ name: "laptop" })
      },
    })
    click(byTestId(container, "connection-add-open"))
    submit(byTestId(container, "connection-add-form"))
    expect(byTestId(container, "connection-add-url-error")?.textContent).toMatch(/address/)
    typeInto(byTestId(container, "connection-add-url") as HTMLInputElement, "ftp://box")
    expect(byTestId(container, "connection-add-url-error")?.textContent).toMatch(/http/)
    expect(callsOf("connectors.add")).toHaveLength(0)
    typeInto(byTestId(container, "connection-add-url") as HTMLInputElement, "http://127.0.0.1:4096")
    typeInto(byTestId(container, "connection-add-name") as HTMLInputElement, "laptop")
    submit(byTestId(container, "connection-add-form"))
    await flush()
    expect(byTestId(container, "connection-add-name-error")?.textContent).toBe(
      "A connection named laptop already exists",
    )
  })

  it("removes an added server after asking", async () => {
    const { container, callsOf } = mount([info("laptop")], { "connectors.remove": () => null })
    click(byTestId(container, "connection-remove"))
    click(byTestId(container, "connection-remove-yes"))
    await flush()
    expect(callsOf("connectors.remove").map((call) => call.payload)).toEqual([{ name: "laptop" }])
  })
})
