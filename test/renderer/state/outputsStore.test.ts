import { describe, expect, it } from "vitest"
import type { AppEvent } from "@contract/events"
import {
  applyOutputsEvents,
  initialOutputsState,
  loadOutputsSnapshot,
  outputIdAtPath,
  retentionLabel,
  retentionOf,
} from "@renderer/state/outputsStore"
import { snapshot } from "../support/fixtures"
import { DAY, output, outputId } from "../support/partB"

const created = (n: number, overrides = {}): AppEvent => ({ _tag: "tool_output.created", output: output(n, overrides) })
const deleted = (n: number, reason: "expired" | "deleted" = "deleted"): AppEvent => ({
  _tag: "tool_output.deleted",
  id: outputId(n),
  reason,
})

describe("outputsStore", () => {
  it("puts new outputs first and marks deleted ones with the reason instead of dropping them", () => {
    const state = applyOutputsEvents(initialOutputsState, [created(1), created(2), deleted(1, "expired")])
    expect(state.ids).toEqual([outputId(2), outputId(1)])
    expect(state.removed).toEqual({ [outputId(1)]: "expired" })
  })

  it("returns the same object when nothing changes", () => {
    const state = applyOutputsEvents(initialOutputsState, [created(1), deleted(1)])
    expect(applyOutputsEvents(state, [created(1), deleted(1), deleted(9)])).toBe(state)
    expect(applyOutputsEvents(state, [{ _tag: "project.created", project: {} as never }])).toBe(state)
  })

  it("takes a snapshot as the truth: removed outputs are gone", () => {
    const state = applyOutputsEvents(initialOutputsState, [created(1), created(2), deleted(1)])
    const next = loadOutputsSnapshot(state, { ...snapshot(3), outputs: [output(2)] })
    expect(next.ids).toEqual([outputId(2)])
    expect(next.removed).toEqual({})
  })

  it("finds the output kept at a tool call's output path", () => {
    const state = applyOutputsEvents(initialOutputsState, [created(1), created(2)])
    expect(outputIdAtPath(state, output(2).path)).toBe(outputId(2))
    expect(outputIdAtPath(state, "/elsewhere")).toBeUndefined()
  })

  it("says how long an output is kept in calendar days, today, or that it expired or was deleted", () => {
    const now = new Date(2025, 2, 4, 10, 0).getTime()
    const at = (expiresAt: number) => retentionLabel(retentionOf(output(1, { expiresAt }), undefined, now))
    expect(at(now + 7 * DAY)).toBe("expires in 7 days")
    expect(at(new Date(2025, 2, 5, 1, 0).getTime())).toBe("expires tomorrow")
    expect(at(new Date(2025, 2, 4, 23, 0).getTime())).toBe("expires today")
    expect(at(now - 1)).toBe("expired")
    expect(retentionLabel(retentionOf(output(1, { expiresAt: now + DAY }), "deleted", now))).toBe("deleted")
    expect(retentionLabel(retentionOf(output(1, { expiresAt: now + DAY }), "expired", now))).toBe("expired")
  })
})
