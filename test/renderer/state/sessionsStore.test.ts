import { describe, expect, it } from "vitest"
import type { AppEvent } from "@contract/events"
import {
  applySessionsEvent,
  applySessionsEvents,
  createSessionsStore,
  initialSessionsState,
  loadSessionsSnapshot,
  selectSession,
  selectSessionIds,
} from "@renderer/state/sessionsStore"
import { project, session, snapshot } from "../support/fixtures"

const createdEvent = (n: number, overrides = {}): AppEvent => ({
  _tag: "session.created",
  session: session(n, overrides),
})
const updatedEvent = (n: number, overrides = {}): AppEvent => ({
  _tag: "session.updated",
  session: session(n, overrides),
})

describe("sessionsStore", () => {
  it("adds created sessions in order, normalized by id", () => {
    const state = applySessionsEvents(initialSessionsState, [createdEvent(1), createdEvent(2)])
    expect(state.ids).toEqual([session(1).id, session(2).id])
    expect(state.byId[session(2).id]).toEqual(session(2))
  })

  it("replaces an updated session in place without touching the id list", () => {
    const before = applySessionsEvents(initialSessionsState, [createdEvent(1), createdEvent(2)])
    const after = applySessionsEvent(before, updatedEvent(1, { status: "blocked", updatedAt: 9999 }))
    expect(after).not.toBe(before)
    expect(after.ids).toBe(before.ids)
    expect(after.byId[session(1).id]?.status).toBe("blocked")
    expect(after.byId[session(2).id]).toBe(before.byId[session(2).id])
  })

  it("returns the same object for events about other domains and for updates that change nothing", () => {
    const before = applySessionsEvents(initialSessionsState, [createdEvent(1)])
    expect(applySessionsEvent(before, { _tag: "project.created", project: project(2) })).toBe(before)
    expect(applySessionsEvent(before, updatedEvent(1))).toBe(before)
    expect(applySessionsEvents(before, [])).toBe(before)
  })

  it("loads a snapshot wholesale, and keeps the same object when the snapshot holds exactly the same", () => {
    const stale = applySessionsEvents(initialSessionsState, [createdEvent(9)])
    const loaded = loadSessionsSnapshot(stale, snapshot(3, [session(1), session(2)]))
    expect(loaded.ids).toEqual([session(1).id, session(2).id])
    expect(loaded.byId[session(9).id]).toBeUndefined()
    expect(loadSessionsSnapshot(loaded, snapshot(4, [session(1), session(2)]))).toBe(loaded)
  })

  it("keeps selector results stable across unrelated changes", () => {
    const before = applySessionsEvents(initialSessionsState, [createdEvent(1), createdEvent(2)])
    const after = applySessionsEvent(before, updatedEvent(2, { title: "renamed" }))
    expect(selectSessionIds(after)).toBe(selectSessionIds(before))
    expect(selectSession(session(1).id)(after)).toBe(selectSession(session(1).id)(before))
  })

  it("notifies subscribers once per batch and not at all for a batch that changes nothing", () => {
    const store = createSessionsStore()
    let notified = 0
    store.subscribe(() => notified++)
    store.getState().applyEvents([createdEvent(1), createdEvent(2), updatedEvent(1, { status: "running" })])
    expect(notified).toBe(1)
    store.getState().applyEvents([{ _tag: "project.created", project: project(3) }])
    expect(notified).toBe(1)
    expect(store.getState().ids).toHaveLength(2)
  })
})
