import { describe, expect, it } from "vitest"
import type { AppEvent } from "@contract/events"
import type { SessionDetail } from "@contract/methods"
import type { ToolCall } from "@contract/model"
import {
  applySessionDetailEvents,
  callKey,
  closeSession,
  decisionsLoaded,
  detailFailed,
  detailLoaded,
  initialSessionDetailState,
  openSession,
  reloadSessionDetail,
  selectStaleDecisions,
} from "@renderer/state/sessionDetailStore"
import { session, sessionId } from "../support/fixtures"
import { decision, requestId, toolCall } from "../support/partB"

const started = (call: ToolCall): AppEvent => ({ _tag: "tool_call.started", call })
const finished = (call: ToolCall): AppEvent => ({ _tag: "tool_call.finished", call })
const todos = (content: string, sessionID = sessionId(1)): AppEvent => ({
  _tag: "session.todos.updated",
  sessionID,
  todos: [{ content, status: "pending", priority: "low" }],
})
const asked = (sessionID = sessionId(1)): AppEvent => ({
  _tag: "permission.v2.asked",
  request: { id: requestId(9), sessionID, action: "bash", resources: ["ls"] },
})

const detail = (overrides: Partial<SessionDetail> = {}): SessionDetail => ({
  session: session(1),
  toolCalls: [toolCall("a", { status: "completed", finishedAt: 5100 })],
  todos: [],
  decisions: [decision(1)],
  ...overrides,
})

const ready = () => {
  const loading = openSession(initialSessionDetailState, sessionId(1))
  return detailLoaded(loading, loading.generation, detail())
}

describe("sessionDetailStore", () => {
  it("opens a session as loading and shows the fetched detail", () => {
    const loading = openSession(initialSessionDetailState, sessionId(1))
    expect(loading.status).toBe("loading")
    const state = detailLoaded(loading, loading.generation, detail())
    expect(state.status).toBe("ready")
    expect(state.callKeys).toEqual([callKey(toolCall("a"))])
    expect(state.decisions).toHaveLength(1)
  })

  it("ignores an answer for another generation or another session", () => {
    const loading = openSession(initialSessionDetailState, sessionId(1))
    expect(detailLoaded(loading, loading.generation - 1, detail())).toBe(loading)
    expect(detailLoaded(loading, loading.generation, detail({ session: session(2) }))).toBe(loading)
  })

  it("adds started calls in order and finishes them in place", () => {
    let state = ready()
    state = applySessionDetailEvents(state, [started(toolCall("b")), started(toolCall("c"))])
    const keys = state.callKeys
    state = applySessionDetailEvents(state, [
      finished(toolCall("b", { status: "error", error: "boom", finishedAt: 6000 })),
    ])
    expect(state.callKeys).toBe(keys)
    expect(state.calls[callKey(toolCall("b"))]?.status).toBe("error")
  })

  it("never turns a finished call back into a running one", () => {
    const state = applySessionDetailEvents(ready(), [started(toolCall("a"))])
    expect(state.calls[callKey(toolCall("a"))]?.status).toBe("completed")
  })

  it("replaces the todo list and ignores other sessions' events", () => {
    const before = ready()
    expect(
      applySessionDetailEvents(before, [todos("x", sessionId(2)), started(toolCall("z", { sessionID: sessionId(2) }))]),
    ).toBe(before)
    expect(applySessionDetailEvents(before, [todos("ship")]).todos.map((todo) => todo.content)).toEqual(["ship"])
  })

  it("marks decisions stale on the session's permission events until they are fetched again", () => {
    let state = ready()
    expect(selectStaleDecisions(state)).toBe(0)
    state = applySessionDetailEvents(state, [asked(), asked(sessionId(2))])
    const wanted = selectStaleDecisions(state)
    expect(wanted).toBeGreaterThan(0)
    const newer = applySessionDetailEvents(state, [asked()])
    const loaded = decisionsLoaded(newer, sessionId(1), wanted, [decision(9), decision(1)])
    expect(loaded.decisions).toHaveLength(2)
    expect(selectStaleDecisions(loaded)).toBeGreaterThan(wanted)
    expect(decisionsLoaded(loaded, sessionId(1), wanted - 1, [])).toBe(loaded)
  })

  it("holds events that arrive while the detail loads and replays them on top of the answer", () => {
    const loading = openSession(initialSessionDetailState, sessionId(1))
    const held = applySessionDetailEvents(loading, [
      started(toolCall("b")),
      finished(toolCall("a", { status: "completed", finishedAt: 5100 })),
      todos("late"),
    ])
    const state = detailLoaded(held, held.generation, detail({ toolCalls: [toolCall("a", { status: "running" })] }))
    expect(state.callKeys).toEqual([callKey(toolCall("a")), callKey(toolCall("b"))])
    expect(state.calls[callKey(toolCall("a"))]?.status).toBe("completed")
    expect(state.todos.map((todo) => todo.content)).toEqual(["late"])
    expect(state.held).toEqual([])
  })

  it("reloads after a snapshot, keeping what it shows, and refetches after an error", () => {
    const state = ready()
    const reloading = reloadSessionDetail(state)
    expect(reloading.status).toBe("reloading")
    expect(reloading.generation).toBe(state.generation + 1)
    expect(reloading.callKeys).toBe(state.callKeys)
    const failed = detailFailed(reloading, reloading.generation, "Session not found")
    expect(failed.status).toBe("error")
    expect(openSession(failed, sessionId(1)).status).toBe("loading")
    expect(reloadSessionDetail(initialSessionDetailState)).toBe(initialSessionDetailState)
  })

  it("closes to nothing", () => {
    const closed = closeSession(ready())
    expect(closed.sessionID).toBeNull()
    expect(closed.status).toBe("closed")
    expect(applySessionDetailEvents(closed, [started(toolCall("x"))])).toBe(closed)
  })
})
