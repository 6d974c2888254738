import { act } from "react"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { App } from "@renderer/App"
import { useConnectionStore } from "@renderer/state/connectionStore"
import { useNavigationStore } from "@renderer/state/navigationStore"
import { useSessionsStore } from "@renderer/state/sessionsStore"
import { info, session, snapshot } from "./support/fixtures"
import { render } from "./support/render"
import { scriptedBridge } from "./support/scriptedBridge"

let container: HTMLElement
let unmount: () => void

beforeEach(() => {
  // The views load what the snapshot does not carry (e.g. the agents' rules) through the bridge.
  const { bridge } = scriptedBridge({ "agents.list": () => [] })
  ;({ container, unmount } = render(<App />, bridge))
})

afterEach(() => {
  unmount()
  useNavigationStore.setState({ view: "inbox" })
  useConnectionStore.setState({ indicator: "connecting", problem: null, info: null })
  useSessionsStore.setState({ ids: [], byId: {} })
})

const connection = () => container.querySelector<HTMLElement>('[data-testid="connection"]')!
const heading = () => container.querySelector("h1")!.textContent
const navButton = (name: string) =>
  Array.from(container.querySelectorAll<HTMLButtonElement>("nav button")).find((button) => button.textContent === name)!

describe("App", () => {
  it("shows the connection state from the store on the indicator, with version and host once live", () => {
    expect(connection().dataset.state).toBe("connecting")
    act(() => useConnectionStore.getState().live(info()))
    expect(connection().dataset.state).toBe("live")
    expect(connection().textContent).toContain("v0.0.0-test · headless")
  })

  it("explains an offline connection in an alert", () => {
    act(() => useConnectionStore.getState().transportChanged({ state: "offline", epoch: 0, problem: "No token here." }))
    expect(connection().dataset.state).toBe("offline")
    expect(container.querySelector('[role="alert"]')?.textContent).toBe("No token here.")
  })

  it("starts in the inbox and switches views from the navigation, marking the current one", () => {
    expect(heading()).toBe("Inbox")
    expect(navButton("Inbox").getAttribute("aria-current")).toBe("page")
    for (const name of ["Sessions", "Approvals", "Outputs"]) {
      act(() => navButton(name).click())
      expect(heading()).toBe(name)
      expect(navButton(name).getAttribute("aria-current")).toBe("page")
      expect(document.activeElement?.textContent).toBe(name)
      expect(container.querySelector('[data-testid="empty-state"]')).not.toBeNull()
    }
  })

  it("lists sessions from the store instead of the empty state", () => {
    act(() => navButton("Sessions").click())
    act(() => useSessionsStore.getState().loadSnapshot(snapshot(1, [session(1), session(2)])))
    expect(container.querySelectorAll('[data-testid="session-row"]')).toHaveLength(2)
    expect(container.querySelector('[data-testid="empty-state"]')).toBeNull()
  })
})
