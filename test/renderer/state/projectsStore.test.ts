import { describe, expect, it } from "vitest"
import {
  applyProjectsEvent,
  initialProjectsState,
  loadProjectsSnapshot,
  selectProjectName,
} from "@renderer/state/projectsStore"
import { project, session, snapshot } from "../support/fixtures"

describe("projectsStore", () => {
  it("adds a created project once and ignores session events", () => {
    const once = applyProjectsEvent(initialProjectsState, { _tag: "project.created", project: project(1) })
    expect(once.ids).toEqual([project(1).id])
    expect(applyProjectsEvent(once, { _tag: "project.created", project: project(1) })).toBe(once)
    expect(applyProjectsEvent(once, { _tag: "session.created", session: session(1) })).toBe(once)
  })

  it("names a project by id, and has no name for one it does not know yet", () => {
    const state = loadProjectsSnapshot(initialProjectsState, snapshot(1, [], [project(1), project(2)]))
    expect(selectProjectName(project(2).id)(state)).toBe("p2")
    expect(selectProjectName(project(3).id)(state)).toBeUndefined()
    expect(selectProjectName(undefined)(state)).toBeUndefined()
  })
})
