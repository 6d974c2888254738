import { act } from "react"
import type { AppEvent } from "@contract/events"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { InboxList } from "@renderer/features/inbox/InboxList"
import { InboxView } from "@renderer/features/inbox/InboxView"
import { QuestionCard } from "@renderer/features/inbox/QuestionCard"
import { countFromTitle, describeItem, notificationFor, titleFor } from "@renderer/features/inbox/announce"
import { useConnectionStore } from "@renderer/state/connectionStore"
import { ARM_DELAY_MS, initialInboxState, useInboxStore, type InboxQuestion } from "@renderer/state/inboxStore"
import { useSessionsStore } from "@renderer/state/sessionsStore"
import { info, session, snapshot } from "../../support/fixtures"
import { T0, asked, questionAsked, questionRequest, request } from "../../support/inbox"
import { allByTestId, byTestId, click, flush, render } from "../../support/render"
import { scriptedBridge } from "../../support/scriptedBridge"

const mounted: Array<{ unmount: () => void }> = []
const show = (ui: Parameters<typeof render>[0], answers: Parameters<typeof scriptedBridge>[0] = {}) => {
  const scripted = scriptedBridge(answers)
  const view = render(ui, scripted.bridge)
  mounted.push(view)
  return { ...view, ...scripted }
}

const key = (key: string, target: EventTarget = document, init: KeyboardEventInit = {}) =>
  act(() => {
    target.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...init }))
  })

/** Makes the cursor's card answerable now (as if it had been on screen for a moment). */
const arm = () => act(() => useInboxStore.setState({ armedAt: Date.now() - ARM_DELAY_MS }))

// jsdom lays nothing out: give the list a viewport and every row a height, as a browser would.
const layout = {
  clientHeight: (element: HTMLElement) => (element.classList.contains("inbox-scroll") ? 1200 : 0),
  clientWidth: (element: HTMLElement) => (element.classList.contains("inbox-scroll") ? 800 : 0),
  offsetHeight: (element: HTMLElement) => (element.classList.contains("inbox-row") ? 200 : 0),
}
const originals = new Map<string, PropertyDescriptor | undefined>()

beforeEach(() => {
  for (const [name, value] of Object.entries(layout)) {
    originals.set(name, Object.getOwnPropertyDescriptor(HTMLElement.prototype, name))
    Object.defineProperty(HTMLElement.prototype, name, {
      configurable: true,
      get(this: HTMLElement) {
        return value(this)
      },
    })
  }
  useSessionsStore.getState().loadSnapshot(snapshot(1, [session(1), session(2, { title: "second" })]))
  act(() => useConnectionStore.getState().live(info()))
})

afterEach(() => {
  for (const view of mounted.splice(0)) view.unmount()
  for (const [name, descriptor] of originals)
    if (descriptor) Object.defineProperty(HTMLElement.prototype, name, descriptor)
  useInboxStore.setState(initialInboxState)
  useConnectionStore.setState({ indicator: "connecting", problem: null, info: null })
})

describe("InboxView", () => {
  it("shows an empty state when live with nothing pending, and an error state when offline", () => {
    const { container } = show(<InboxView />)
    expect(byTestId(container, "empty-state")).not.toBeNull()
    expect(byTestId(container, "inbox-error")).toBeNull()
    act(() => useConnectionStore.getState().transportChanged({ state: "offline", epoch: 1, problem: "gone" }))
    expect(byTestId(container, "empty-state")).toBeNull()
    expect(byTestId(container, "inbox-error")?.textContent).toContain("Not connected")
  })

  it("answers the card under the cursor with o, a and r, each for its own id", async () => {
    const [a, b, c] = [request(T0 + 1, 1), request(T0 + 2, 1), request(T0 + 3, 2)]
    act(() => useInboxStore.getState().applyEvents([asked(a), asked(b), asked(c)]))
    const { callsOf } = show(<InboxView />, { "permission.reply": () => null })
    arm()
    key("o")
    key("j")
    key("a")
    key("j")
    key("r")
    await flush()
    expect(callsOf("permission.reply").map((call) => call.payload)).toEqual([
      { requestID: a.id, reply: "once" },
      { requestID: b.id, reply: "always" },
      { requestID: c.id, reply: "reject" },
    ])
  })

  it("ignores answer keys until the card under the cursor is armed, and auto-repeated keys", async () => {
    const a = request(T0 + 1, 1)
    act(() => useInboxStore.getState().applyEvents([asked(a)]))
    const { callsOf } = show(<InboxView />, { "permission.reply": () => null })
    key("o")
    arm()
    key("o", document, { repeat: true })
    await flush()
    expect(callsOf("permission.reply")).toEqual([])
    key("o")
    await flush()
    expect(callsOf("permission.reply")).toHaveLength(1)
  })

  it("treats letters typed into a text box as text, not commands", async () => {
    const a = request(T0 + 1, 1)
    act(() => useInboxStore.getState().applyEvents([asked(a)]))
    const { container, callsOf } = show(<InboxView />, { "permission.reply": () => null })
    arm()
    key("f")
    const textarea = byTestId(container, "feedback")?.querySelector("textarea")
    expect(textarea).toBeTruthy()
    for (const letter of ["o", "a", "r", "x", "R", "j"]) key(letter, textarea!)
    await flush()
    expect(callsOf("permission.reply")).toEqual([])
    expect(useInboxStore.getState().selected).toEqual([])
    key("Escape", textarea!)
    expect(byTestId(container, "feedback")).toBeNull()
  })

  it("selects asks with x and answers them together, and R opens the session's reject-all", async () => {
    const [a, b, c] = [request(T0 + 1, 1), request(T0 + 2, 1), request(T0 + 3, 2)]
    act(() => useInboxStore.getState().applyEvents([asked(a), asked(b), asked(c)]))
    const { container, callsOf } = show(<InboxView />, {
      "permission.replyMany": (payload) => ({
        results: payload.requestIDs.map((requestID) => ({ requestID, outcome: "replied" as const })),
      }),
    })
    arm()
    key("x")
    key("j")
    key("j")
    key("x")
    expect(byTestId(container, "bulk-count")?.textContent).toContain("2 selected")
    key("r")
    await flush()
    expect(callsOf("permission.replyMany").map((call) => call.payload)).toEqual([
      { requestIDs: [a.id, c.id], reply: "reject" },
    ])
    expect(byTestId(container, "bulk-bar")).toBeNull()
    key("R")
    expect(useInboxStore.getState().composer).toEqual({ kind: "session", sessionID: c.sessionID })
  })

  it("marks the asks an agent server could not be told about as failed, with the reason, and clears the others", async () => {
    const [a, b] = [request(T0 + 1, 1), request(T0 + 2, 1)]
    act(() => useInboxStore.getState().applyEvents([asked(a), asked(b)]))
    show(<InboxView />, {
      "permission.replyMany": () => ({
        results: [
          { requestID: a.id, outcome: "failed" as const, reason: "oc: Connection refused" },
          { requestID: b.id, outcome: "replied" as const },
        ],
      }),
    })
    arm()
    key("x")
    key("j")
    key("x")
    key("o")
    await flush()
    const state = useInboxStore.getState()
    expect(state.failures[a.id]).toBe("Not sent: oc: Connection refused")
    expect(state.sending[a.id]).toBeUndefined()
    expect(state.failures[b.id]).toBeUndefined()
  })

  it("shows and hides the keys with ?", () => {
    const { container } = show(<InboxView />)
    key("?")
    expect(byTestId(container, "key-help")?.textContent).toContain("Reject every ask of this card's session")
    key("?")
    expect(byTestId(container, "key-help")).toBeNull()
  })
})

describe("InboxList", () => {
  it("renders session headers, the longest-blocked first, and only the rows that fit", () => {
    const events: Array<AppEvent> = []
    for (let i = 0; i < 500; i++) events.push(asked(request(T0 + i, (i % 2) + 1)))
    act(() => useInboxStore.getState().applyEvents(events))
    const { container } = show(<InboxList />)
    const headers = allByTestId(container, "session-group")
    expect(headers[0]?.dataset.session).toBe(session(1).id)
    expect(byTestId(container, "inbox-list")?.dataset.count).toBe("500")
    const cards = allByTestId(container, "ask-card")
    expect(cards.length).toBeGreaterThan(0)
    expect(cards.length).toBeLessThan(30)
  })
})

describe("QuestionCard", () => {
  const item = (): InboxQuestion => {
    const value = questionRequest(T0 + 1, 1)
    return { kind: "question", id: value.id, sessionID: value.sessionID, askedAt: T0 + 1, request: value }
  }

  it("sends the picked option, and dismisses with its own button", async () => {
    const question = item()
    act(() => useInboxStore.getState().applyEvents([questionAsked(question.request)]))
    const { container, callsOf } = show(<QuestionCard item={question} />, {
      "question.reply": () => null,
      "question.reject": () => null,
    })
    expect(container.querySelectorAll('input[type="radio"]')).toHaveLength(2)
    const send = Array.from(container.querySelectorAll("button")).find(
      (button) => button.textContent === "Send answers",
    )!
    expect(send.disabled).toBe(true)
    click(container.querySelectorAll<HTMLInputElement>('input[type="radio"]')[1]!)
    click(send)
    await flush()
    expect(callsOf("question.reply").map((call) => call.payload)).toEqual([
      { requestID: question.id, answers: [["Postgres"]] },
    ])

    // Another question of the same kind, dismissed with its own button.
    const other = questionRequest(T0 + 2, 1)
    act(() => useInboxStore.getState().applyEvents([questionAsked(other)]))
    const second = show(
      <QuestionCard
        item={{ kind: "question", id: other.id, sessionID: other.sessionID, askedAt: T0 + 2, request: other }}
      />,
      { "question.reject": () => null },
    )
    click(
      Array.from(second.container.querySelectorAll("button")).find((button) =>
        button.textContent?.startsWith("Dismiss"),
      )!,
    )
    await flush()
    expect(second.callsOf("question.reject").map((call) => call.payload)).toEqual([{ requestID: other.id }])
  })
})

describe("announce", () => {
  it("puts the pending count in the title, where the Electron side can read it back", () => {
    expect(titleFor(0)).toBe("Gatehouse")
    expect(titleFor(12)).toBe("(12) Gatehouse")
    expect(countFromTitle(titleFor(12))).toBe(12)
    expect(countFromTitle("Gatehouse")).toBe(0)
  })

  it("describes new asks for a notification with their text escaped", () => {
    const value = request(T0, 1, { resources: ["rm \u202e-rf"] })
    const ask = {
      kind: "ask" as const,
      id: value.id,
      sessionID: value.sessionID,
      askedAt: T0,
      request: value,
      agent: null,
      call: null,
    }
    expect(describeItem(ask)).toBe("bash: rm \\u202e-rf")
    expect(notificationFor([ask]).title).toBe("An ask is waiting")
    expect(notificationFor([ask, ask]).title).toBe("2 new asks are waiting")
  })
})
