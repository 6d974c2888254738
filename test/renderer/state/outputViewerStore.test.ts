import { describe, expect, it } from "vitest"
import {
  closeOutput,
  goToOffset,
  initialOutputViewerState,
  matchesFailed,
  matchesLoaded,
  matchSummary,
  nextMatch,
  openOutput,
  pageFailed,
  pageLoaded,
  pageOffsetOf,
  PAGE_LINES,
  previousMatch,
  startSearch,
  type OutputViewerState,
} from "@renderer/state/outputViewerStore"
import { outputId } from "../support/partB"

const opened = () => openOutput(initialOutputViewerState, outputId(1))
const page = (offset: number) => ({
  offset,
  lines: [{ number: offset + 1, text: "x", cut: false }],
  nextOffset: offset + PAGE_LINES,
})

/** Starts a search and answers its first batch. */
function searched(lines: ReadonlyArray<number>, nextOffset: number | null): OutputViewerState {
  const state = startSearch(opened(), "needle")
  return matchesLoaded(state, state.search.request, lines, nextOffset)
}

describe("outputViewerStore", () => {
  it("opens an output at its first page and asks for it", () => {
    const state = opened()
    expect(state.outputId).toBe(outputId(1))
    expect(state.offset).toBe(0)
    expect(state.loading).toBe(true)
    expect(openOutput(state, outputId(1))).toBe(state)
  })

  it("shows a page only for the latest request", () => {
    const first = opened()
    const moved = goToOffset(first, 200)
    expect(pageLoaded(moved, first.request, page(0))).toBe(moved)
    const shown = pageLoaded(moved, moved.request, page(200))
    expect(shown.page?.offset).toBe(200)
    expect(shown.loading).toBe(false)
    expect(pageFailed(shown, first.request, "boom")).toBe(shown)
  })

  it("does not ask again for the page already shown, and never for a negative offset", () => {
    const shown = pageLoaded(opened(), 1, page(0))
    expect(goToOffset(shown, 0)).toBe(shown)
    expect(goToOffset(goToOffset(shown, 200), -50).offset).toBe(0)
  })

  it("keeps an error for the person and retries when asked for the page again", () => {
    const failed = pageFailed(opened(), 1, "Tool output not found")
    expect(failed.error).toBe("Tool output not found")
    expect(goToOffset(failed, 0).loading).toBe(true)
  })

  it("places a match on its page-aligned page", () => {
    expect(pageOffsetOf(1)).toBe(0)
    expect(pageOffsetOf(200)).toBe(0)
    expect(pageOffsetOf(201)).toBe(200)
  })

  it("jumps to the first match when the first batch arrives", () => {
    const state = searched([42, 1042], 1042)
    expect(state.search.current).toBe(0)
    expect(state.offset).toBe(0)
    expect(matchSummary(state.search)).toBe("1 of 2+")
  })

  it("moves through known matches, then fetches more, then wraps when the file is searched through", () => {
    let state = searched([42, 1042], 1042)
    state = nextMatch(state)
    expect(state.search.current).toBe(1)
    expect(state.offset).toBe(1000)
    state = nextMatch(state)
    expect(state.search.loading).toBe(true)
    expect(nextMatch(state)).toBe(state)
    state = matchesLoaded(state, state.search.request, [2042], null)
    expect(state.search.current).toBe(2)
    expect(state.offset).toBe(2000)
    expect(matchSummary(state.search)).toBe("3 of 3")
    state = nextMatch(state)
    expect(state.search.current).toBe(0)
    expect(state.offset).toBe(0)
  })

  it("wraps to the first match when the last batch has none past the current one", () => {
    let state = searched([42], 500)
    state = nextMatch(state)
    state = matchesLoaded(state, state.search.request, [], null)
    expect(state.search.current).toBe(0)
    expect(state.search.loading).toBe(false)
  })

  it("moves back, and from the first match wraps to the last only once every match is known", () => {
    let state = searched([42, 1042], 1042)
    expect(previousMatch(state)).toBe(state)
    state = nextMatch(state)
    state = previousMatch(state)
    expect(state.search.current).toBe(0)
    const complete = searched([42, 1042, 2042], null)
    const last = previousMatch(complete)
    expect(last.search.current).toBe(2)
    expect(last.offset).toBe(2000)
  })

  it("says when nothing matches and ignores answers to an older search", () => {
    const state = startSearch(opened(), "absent")
    const none = matchesLoaded(state, state.search.request, [], null)
    expect(matchSummary(none.search)).toBe("No matches")
    const again = startSearch(none, "other")
    expect(matchesLoaded(again, state.search.request, [7], null)).toBe(again)
    expect(matchesFailed(again, again.search.request, "boom").search.error).toBe("boom")
  })

  it("ends the search on an empty query and forgets everything on close", () => {
    const state = searched([42], null)
    expect(startSearch(state, "").search.query).toBe("")
    const closed = closeOutput(state)
    expect(closed.outputId).toBeNull()
    expect(closed.page).toBeNull()
    expect(closed.request).toBeGreaterThan(state.request)
    expect(closed.search.request).toBeGreaterThan(state.search.request)
  })

  it("does not apply an earlier output's search answer to the next output", () => {
    const state = startSearch(opened(), "needle")
    const other = openOutput(state, outputId(2))
    expect(matchesLoaded(other, state.search.request, [1], null)).toBe(other)
  })
})
