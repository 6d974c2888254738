import { describe, expect, it } from "vitest"
import { initialNavigationState, navigateTo, Views } from "@renderer/state/navigationStore"

describe("navigationStore", () => {
  it("starts in the inbox and switches views, keeping the same object for the current one", () => {
    expect(initialNavigationState.view).toBe("inbox")
    expect(Views).toEqual(["inbox", "sessions", "approvals", "outputs"])
    const sessions = navigateTo(initialNavigationState, "sessions")
    expect(sessions.view).toBe("sessions")
    expect(navigateTo(sessions, "sessions")).toBe(sessions)
  })
})
