import { describe, expect, it } from "vitest"
import type { AppEvent } from "@contract/events"
import type { ApprovalEntry } from "@contract/model"
import {
  agentsLoaded,
  annotationsLoaded,
  applyApprovalsEvents,
  createApprovalsStore,
  groupApprovals,
  initialApprovalsState,
  loadApprovalsSnapshot,
  noApprovalFilter,
  selectApprovalIds,
  shadowSeverity,
  unannotatedIds,
} from "@renderer/state/approvalsStore"
import { approval, approvalId } from "../support/partB"
import { projectId, sessionId, snapshot } from "../support/fixtures"

const added = (n: number, overrides = {}): AppEvent => ({ _tag: "approval.added", approval: approval(n, overrides) })
const updated = (n: number, overrides = {}): AppEvent => ({
  _tag: "approval.updated",
  approval: approval(n, overrides),
})
const removed = (n: number): AppEvent => ({ _tag: "approval.removed", id: approvalId(n), projectID: projectId(1) })

const entry = (n: number, overrides = {}, shadowed = false): ApprovalEntry => ({
  approval: approval(n, overrides),
  origin: null,
  shadowedBy: shadowed
    ? [{ agent: "plan", rule: { action: "bash", resource: "*", effect: "deny" }, ruleIndex: 3 }]
    : [],
})

describe("approvalsStore", () => {
  it("adds, updates and removes approvals from events, in order within one batch", () => {
    const state = applyApprovalsEvents(initialApprovalsState, [
      added(1),
      added(2),
      updated(1, { hitCount: 1 }),
      removed(2),
      added(3),
    ])
    expect(state.ids).toEqual([approvalId(1), approvalId(3)])
    expect(state.byId[approvalId(1)]?.hitCount).toBe(1)
    expect(state.byId[approvalId(2)]).toBeUndefined()
  })

  it("returns the same object for a batch that concerns no approval or changes nothing", () => {
    const state = applyApprovalsEvents(initialApprovalsState, [added(1)])
    expect(applyApprovalsEvents(state, [{ _tag: "session.created", session: {} as never }])).toBe(state)
    expect(applyApprovalsEvents(state, [updated(1)])).toBe(state)
    expect(applyApprovalsEvents(state, [removed(7)])).toBe(state)
  })

  it("replaces the rows from a snapshot and drops annotations and agents, which may have changed", () => {
    let state = applyApprovalsEvents(initialApprovalsState, [added(1)])
    state = annotationsLoaded(state, [entry(1)])
    state = agentsLoaded(state, [])
    const next = loadApprovalsSnapshot(state, { ...snapshot(5), approvals: [approval(2)] })
    expect(next.ids).toEqual([approvalId(2)])
    expect(next.annotations).toEqual({})
    expect(next.agents).toBeNull()
    const again = loadApprovalsSnapshot(next, { ...snapshot(6), approvals: [approval(2)] })
    expect(again).toBe(next)
  })

  it("asks to annotate new rows and rows whose pattern changed, and forgets a removed row's annotation", () => {
    let state = applyApprovalsEvents(initialApprovalsState, [added(1), added(2)])
    expect(unannotatedIds(state)).toEqual([approvalId(1), approvalId(2)])
    state = annotationsLoaded(state, [entry(1), entry(2)])
    expect(unannotatedIds(state)).toEqual([])
    state = applyApprovalsEvents(state, [updated(1, { resource: "edited *" }), updated(2, { hitCount: 4 })])
    expect(unannotatedIds(state)).toEqual([approvalId(1)])
    state = applyApprovalsEvents(state, [removed(2)])
    expect(state.annotations[approvalId(2)]).toBeUndefined()
  })

  it("groups by project, then action, then resource, and filters by text, project and shadowing", () => {
    let state = applyApprovalsEvents(initialApprovalsState, [
      added(1, { action: "edit", resource: "src/*" }),
      added(2, { action: "bash", resource: "make *" }),
      added(3, { action: "bash", resource: "git status *" }),
      added(4, { projectID: projectId(2), action: "read", resource: "*.md" }),
    ])
    state = annotationsLoaded(state, [entry(1, { action: "edit", resource: "src/*" }, true)])
    const names = (id: string) => ({ [projectId(1)]: "alpha", [projectId(2)]: "beta" })[id]
    const order = [projectId(2), projectId(1)]
    const all = groupApprovals(state, noApprovalFilter, names, order)
    expect(all.map((group) => group.projectID)).toEqual([projectId(2), projectId(1)])
    expect(all[1]!.actions.map((action) => [action.action, action.ids])).toEqual([
      ["bash", [approvalId(3), approvalId(2)]],
      ["edit", [approvalId(1)]],
    ])
    const byText = groupApprovals(state, { ...noApprovalFilter, text: "GIT" }, names, order)
    expect(byText.flatMap((group) => group.actions.flatMap((action) => action.ids))).toEqual([approvalId(3)])
    const byProjectName = groupApprovals(state, { ...noApprovalFilter, text: "beta" }, names, order)
    expect(byProjectName.map((group) => group.projectID)).toEqual([projectId(2)])
    const byProject = groupApprovals(state, { ...noApprovalFilter, projectID: projectId(1) }, names, order)
    expect(byProject.map((group) => group.projectID)).toEqual([projectId(1)])
    const shadowed = groupApprovals(state, { ...noApprovalFilter, shadowedOnly: true }, names, order)
    expect(shadowed.flatMap((group) => group.actions.flatMap((action) => action.ids))).toEqual([approvalId(1)])
  })

  it("keeps the ids array stable across updates, so list selectors do not re-render", () => {
    const store = createApprovalsStore()
    store.getState().applyEvents([added(1), added(2)])
    const ids = selectApprovalIds(store.getState())
    store.getState().applyEvents([updated(1, { hitCount: 2, lastUsedAt: 9 })])
    expect(selectApprovalIds(store.getState())).toBe(ids)
  })

  it("weighs a shadow: every agent, a primary agent, only subagents, or none", () => {
    const agent = (name: string, mode: "primary" | "subagent", hidden = false) => ({
      name,
      description: "",
      mode,
      hidden,
      rules: [],
    })
    const agents = [agent("build", "primary"), agent("explore", "subagent"), agent("title", "primary", true)]
    const by = (...names: ReadonlyArray<string>) =>
      names.map((name) => ({
        agent: name,
        rule: { action: "*", resource: "*", effect: "deny" as const },
        ruleIndex: 0,
      }))
    expect(shadowSeverity([], agents)).toBe("none")
    expect(shadowSeverity(by("explore"), agents)).toBe("subagents")
    expect(shadowSeverity(by("build"), agents)).toBe("primary")
    expect(shadowSeverity(by("build", "explore"), agents)).toBe("all")
    expect(shadowSeverity(by("explore"), null)).toBe("primary")
  })

  it("keeps an origin's session when annotations arrive", () => {
    const origin = {
      requestID: "per_0000000000000001abcdefABCDEF" as never,
      sessionID: sessionId(1),
      agent: "build",
      resources: ["ls"],
      askedAt: 1,
    }
    const state = annotationsLoaded(applyApprovalsEvents(initialApprovalsState, [added(1)]), [{ ...entry(1), origin }])
    expect(state.annotations[approvalId(1)]?.origin?.sessionID).toBe(sessionId(1))
  })
})
