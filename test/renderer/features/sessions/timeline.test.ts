import { describe, expect, it } from "vitest"
import {
  callDuration,
  filterSessions,
  inputSummary,
  noSessionFilter,
  pendingBySession,
} from "@renderer/features/sessions/timeline"
import { projectId, session, sessionId } from "../../support/fixtures"

describe("timeline", () => {
  it("summarizes a call by what a person recognizes it by", () => {
    expect(inputSummary("bash", { command: "ls -la", workdir: "sub" })).toBe("ls -la  (in sub)")
    expect(inputSummary("read", { path: "src/a.ts" })).toBe("src/a.ts")
    expect(inputSummary("grep", { pattern: "TODO" })).toBe("TODO")
    expect(inputSummary("webfetch", { url: "https://example.com" })).toBe("https://example.com")
    expect(inputSummary("todowrite", { todos: [{}, {}] })).toBe("2 todos")
    expect(
      inputSummary("apply_patch", {
        patchText: "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Delete File: b.txt\n*** End Patch",
      }),
    ).toBe("a.txt, b.txt")
    expect(inputSummary("question", { questions: [{ question: "Which branch?" }] })).toBe("Which branch?")
  })

  it("falls back to compact JSON (or the raw text) for unknown tools and shapes, cut to a sane length", () => {
    expect(inputSummary("mcp_tool", { a: 1 })).toBe('{"a":1}')
    expect(inputSummary("bash", "not json")).toBe("not json")
    const long = inputSummary("bash", { command: "x".repeat(1000) })
    expect(long.length).toBe(240)
    expect(long.endsWith("…")).toBe(true)
  })

  it("measures a finished call to its end and a running one to now", () => {
    expect(callDuration({ startedAt: 100, finishedAt: 350 }, 9999)).toBe(250)
    expect(callDuration({ startedAt: 100, finishedAt: null }, 400)).toBe(300)
  })

  it("filters sessions by status and project and lists the most recently active first", () => {
    const sessions = [
      session(1, { updatedAt: 10 }),
      session(2, { updatedAt: 30, status: "blocked" }),
      session(3, { updatedAt: 20, projectId: projectId(2) }),
    ]
    const byId = Object.fromEntries(sessions.map((s) => [s.id, s]))
    const ids = sessions.map((s) => s.id)
    expect(filterSessions(ids, byId, noSessionFilter)).toEqual([sessionId(2), sessionId(3), sessionId(1)])
    expect(filterSessions(ids, byId, { status: "blocked", projectID: null })).toEqual([sessionId(2)])
    expect(filterSessions(ids, byId, { status: null, projectID: projectId(2) })).toEqual([sessionId(3)])
  })

  it("counts pending items per session, once per ids array", () => {
    const ids = ["a", "b", "c"]
    const byId = { a: { sessionID: "s1" }, b: { sessionID: "s2" }, c: { sessionID: "s1" } }
    const counts = pendingBySession(ids, byId)
    expect(counts.get("s1")).toBe(2)
    expect(counts.get("s2")).toBe(1)
    expect(pendingBySession(ids, byId)).toBe(counts)
  })
})
