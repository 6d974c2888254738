import { act } from "react"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { SessionDetail } from "@contract/methods"
import { SessionsView } from "@renderer/features/sessions/SessionsView"
import { useConnectionStore } from "@renderer/state/connectionStore"
import { initialInboxState, useInboxStore } from "@renderer/state/inboxStore"
import { useNavigationStore } from "@renderer/state/navigationStore"
import { initialOutputViewerState, useOutputViewerStore } from "@renderer/state/outputViewerStore"
import { initialOutputsState, useOutputsStore } from "@renderer/state/outputsStore"
import { useProjectsStore } from "@renderer/state/projectsStore"
import { initialSessionDetailState, useSessionDetailStore } from "@renderer/state/sessionDetailStore"
import { useSessionsStore } from "@renderer/state/sessionsStore"
import { project, projectId, session, sessionId, snapshot } from "../../support/fixtures"
import { decision, output, outputId, requestId, toolCall } from "../../support/partB"
import { allByTestId, byTestId, click, flush, render, typeInto } from "../../support/render"
import { scriptedBridge, type Answers } from "../../support/scriptedBridge"

const sessions = [
  session(1, { status: "blocked", updatedAt: 30, title: "fix the build" }),
  session(2, { status: "idle", updatedAt: 20, source: "mcp:claude-code" }),
  session(3, { status: "running", updatedAt: 10, projectId: projectId(2) }),
]

const ask = (n: number, sessionN: number) => ({
  request: { id: requestId(n), sessionID: sessionId(sessionN), action: "bash", resources: [`cmd ${n}`] },
  askedAt: 1000 + n,
  agent: "build",
  projectID: projectId(1),
  call: null,
})

const detail: SessionDetail = {
  session: sessions[0]!,
  toolCalls: [
    toolCall("a", {
      input: { command: "seq 3000" },
      status: "completed",
      resultKind: "text",
      preview: "1\n2\n3",
      outputPaths: [output(1).path],
      startedAt: 1000,
      finishedAt: 1840,
    }),
    toolCall("b", {
      tool: "read",
      input: { path: ".env" },
      status: "error",
      error: "Permission denied: read",
      finishedAt: 6000,
    }),
  ],
  todos: [{ content: "make it green", status: "in_progress", priority: "high" }],
  decisions: [decision(1, { status: "corrected", decidedBy: "person", feedback: "use make" })],
}

let mounted: ReturnType<typeof render> | undefined

function mount(answers: Answers = {}) {
  const scripted = scriptedBridge({ "sessions.get": () => detail, ...answers })
  mounted = render(<SessionsView />, scripted.bridge)
  return { ...scripted, container: mounted.container }
}

beforeEach(() => {
  useConnectionStore.setState({ indicator: "live", problem: null, info: null })
  const base = {
    ...snapshot(1, sessions, [project(1), project(2)]),
    asks: [ask(1, 1), ask(2, 1), ask(3, 3)],
    outputs: [output(1)],
  }
  useProjectsStore.getState().loadSnapshot(base)
  useSessionsStore.getState().loadSnapshot(base)
  useInboxStore.getState().loadSnapshot(base)
  useOutputsStore.getState().loadSnapshot(base)
})

afterEach(() => {
  mounted?.unmount()
  useSessionsStore.setState({ ids: [], byId: {} })
  useInboxStore.setState(initialInboxState)
  useOutputsStore.setState(initialOutputsState)
  useSessionDetailStore.setState(initialSessionDetailState)
  useOutputViewerStore.setState(initialOutputViewerState)
  useNavigationStore.setState({ view: "inbox" })
  useConnectionStore.setState({ indicator: "connecting", problem: null, info: null })
})

const rowIds = (container: HTMLElement) => allByTestId(container, "session-row").map((row) => row.dataset.sessionId)

describe("SessionsView", () => {
  it("explains the empty table", () => {
    useSessionsStore.setState({ ids: [], byId: {} })
    const { container } = mount()
    expect(byTestId(container, "empty-state")?.textContent).toContain("No sessions yet")
  })

  it("lists sessions with project, agent, source, status and pending count, most recent first", () => {
    const { container } = mount()
    expect(rowIds(container)).toEqual([sessionId(1), sessionId(2), sessionId(3)])
    const first = container.querySelector(`[data-session-id="${sessionId(1)}"]`)!
    expect(byTestId(first, "session-pending")?.textContent).toBe("2")
    expect(byTestId(first, "session-status")?.textContent).toBe("blocked")
    const mcp = container.querySelector(`[data-session-id="${sessionId(2)}"]`)!
    expect(mcp.textContent).toContain("mcp:claude-code")
    expect(byTestId(mcp, "session-pending")?.textContent).toBe("0")
  })

  it("filters by status and by project", () => {
    const { container } = mount()
    typeInto(byTestId(container, "sessions-status-filter") as HTMLSelectElement, "running")
    expect(rowIds(container)).toEqual([sessionId(3)])
    typeInto(byTestId(container, "sessions-status-filter") as HTMLSelectElement, "")
    typeInto(byTestId(container, "sessions-project-filter") as HTMLSelectElement, projectId(1))
    expect(rowIds(container)).toEqual([sessionId(1), sessionId(2)])
    typeInto(byTestId(container, "sessions-status-filter") as HTMLSelectElement, "failed")
    expect(byTestId(container, "sessions-no-match")).not.toBeNull()
  })

  it("opens a session's timeline, todos and decisions", async () => {
    const { container, callsOf } = mount()
    click(byTestId(container.querySelector(`[data-session-id="${sessionId(1)}"]`)!, "session-open"))
    await flush()
    expect(callsOf("sessions.get").map((call) => call.payload)).toEqual([{ sessionID: sessionId(1) }])
    const view = byTestId(container, "session-detail")!
    expect(view.dataset.state).toBe("ready")
    const calls = allByTestId(view, "tool-call")
    expect(calls.map((call) => [call.dataset.tool, call.dataset.status])).toEqual([
      ["bash", "completed"],
      ["read", "error"],
    ])
    expect(byTestId(calls[0]!, "tool-call-input")?.textContent).toBe("seq 3000")
    expect(byTestId(calls[0]!, "tool-call-duration")?.textContent).toBe("840 ms")
    expect(byTestId(calls[1]!, "tool-call-result")?.textContent).toBe("Permission denied: read")
    expect(allByTestId(view, "todo").map((todo) => todo.dataset.status)).toEqual(["in_progress"])
    expect(byTestId(view, "decision")?.textContent).toContain("use make")
  })

  it("says which server answered a decision that was answered there rather than in Gatehouse", async () => {
    const remote = decision(2, {
      status: "once",
      decidedBy: "person",
      connector: "opencode:laptop",
      remoteID: "per_remote",
      answeredRemotely: true,
    })
    const { container } = mount({ "sessions.get": () => ({ ...detail, decisions: [remote, decision(1)] }) })
    click(byTestId(container.querySelector(`[data-session-id="${sessionId(1)}"]`)!, "session-open"))
    await flush()
    const decisions = allByTestId(container, "decision")
    expect(decisions.map((item) => byTestId(item, "decision-remote")?.textContent ?? null)).toEqual([
      " in opencode:laptop",
      null,
    ])
  })

  it("keeps the open timeline live from events and refetches decisions after a permission event", async () => {
    const { container, callsOf } = mount({
      "decisions.list": () => ({ decisions: [decision(2), decision(1)], nextOffset: null }),
    })
    act(() => useSessionDetailStore.getState().open(sessionId(1)))
    await flush()
    act(() =>
      useSessionDetailStore.getState().applyEvents([
        { _tag: "tool_call.started", call: toolCall("c", { tool: "grep", input: { pattern: "TODO" } }) },
        {
          _tag: "permission.v2.asked",
          request: { id: requestId(2), sessionID: sessionId(1), action: "bash", resources: ["x"] },
        },
      ]),
    )
    await flush()
    expect(allByTestId(container, "tool-call").map((call) => call.dataset.tool)).toEqual(["bash", "read", "grep"])
    expect(callsOf("sessions.get")).toHaveLength(1)
    expect(callsOf("decisions.list").map((call) => call.payload)).toEqual([{ sessionID: sessionId(1), limit: 1000 }])
    expect(allByTestId(container, "decision")).toHaveLength(2)
  })

  it("opens a spilled output in the Outputs viewer from the timeline", async () => {
    const { container } = mount()
    act(() => useSessionDetailStore.getState().open(sessionId(1)))
    await flush()
    click(byTestId(container, "tool-call-output"))
    expect(useNavigationStore.getState().view).toBe("outputs")
    expect(useOutputViewerStore.getState().outputId).toBe(outputId(1))
  })

  it("stops a running session only after confirmation", async () => {
    const { container, callsOf } = mount({ "sessions.stop": () => null })
    act(() => useSessionDetailStore.getState().open(sessionId(1)))
    await flush()
    click(byTestId(container, "session-stop"))
    expect(callsOf("sessions.stop")).toHaveLength(0)
    click(byTestId(container, "session-stop-yes"))
    await flush()
    expect(callsOf("sessions.stop").map((call) => call.payload)).toEqual([{ sessionID: sessionId(1) }])
  })

  it("offers no Stop for a session that is no longer running", async () => {
    const { container } = mount({ "sessions.get": () => ({ ...detail, session: sessions[1]! }) })
    act(() => useSessionDetailStore.getState().open(sessionId(2)))
    await flush()
    expect(byTestId(container, "session-detail")).not.toBeNull()
    expect(byTestId(container, "session-stop")).toBeNull()
  })

  it("shows a failed load with a way to try again, and goes back to the table", async () => {
    let fail = true
    const { container, callsOf } = mount({
      "sessions.get": () => {
        if (fail) throw new Error("Session not found")
        return detail
      },
    })
    act(() => useSessionDetailStore.getState().open(sessionId(1)))
    await flush()
    expect(byTestId(container, "session-detail-error")?.textContent).toContain("Session not found")
    fail = false
    click(byTestId(container, "session-detail-error")!.querySelector("button"))
    await flush()
    expect(callsOf("sessions.get")).toHaveLength(2)
    expect(byTestId(container, "session-detail")?.dataset.state).toBe("ready")
    click(byTestId(container, "session-back"))
    expect(byTestId(container, "sessions-table")).not.toBeNull()
  })
})
