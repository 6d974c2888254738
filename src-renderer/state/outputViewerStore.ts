import { create } from "zustand"
import type { ToolOutputId } from "@contract/ids"
import type { OutputLine } from "@contract/model"

// The output viewer: one page of one managed file at a time, and a search that finds matching line
// numbers in batches as the person moves through them. Nothing here ever holds more than a page of
// text plus the line numbers of the matches found so far, so a 50 MB output never comes over whole.
// Every request carries a number; an answer to an older request is ignored.

/** Lines per page. */
export const PAGE_LINES = 200
/** Matches asked for at once. */
export const MATCH_BATCH = 200

export interface Page {
  readonly offset: number
  readonly lines: ReadonlyArray<OutputLine>
  /** Where the next page starts; `null` at the end of the file. */
  readonly nextOffset: number | null
}

export interface SearchState {
  /** The text searched for (empty: no search). */
  readonly query: string
  /** 1-based numbers of the matching lines found so far, ascending. */
  readonly matches: ReadonlyArray<number>
  /** Where to look for more matches; `null` once the whole file was searched. */
  readonly scanFrom: number | null
  /** Index in `matches` of the match shown; -1 for none. */
  readonly current: number
  /** The index the person asked for (may be past the matches found so far). */
  readonly wanted: number
  /** A batch of matches is being fetched (request `request`). */
  readonly loading: boolean
  readonly request: number
  readonly error: string | null
}

export interface OutputViewerState {
  readonly outputId: ToolOutputId | null
  /** The first line (0-based) of the page shown or being fetched. */
  readonly offset: number
  readonly page: Page | null
  /** A page is being fetched (request `request`). */
  readonly loading: boolean
  readonly request: number
  readonly error: string | null
  readonly search: SearchState
}

const NO_MATCHES: ReadonlyArray<number> = []

export const initialSearchState: SearchState = {
  query: "",
  matches: NO_MATCHES,
  scanFrom: null,
  current: -1,
  wanted: -1,
  loading: false,
  request: 0,
  error: null,
}

export const initialOutputViewerState: OutputViewerState = {
  outputId: null,
  offset: 0,
  page: null,
  loading: false,
  request: 0,
  error: null,
  search: initialSearchState,
}

/** The page-aligned offset of the page that shows 1-based line `line`. */
export const pageOffsetOf = (line: number) => Math.floor(Math.max(0, line - 1) / PAGE_LINES) * PAGE_LINES

export function openOutput<S extends OutputViewerState>(state: S, id: ToolOutputId): S {
  if (state.outputId === id) return state
  return {
    ...state,
    outputId: id,
    offset: 0,
    page: null,
    loading: true,
    request: state.request + 1,
    error: null,
    // A late answer to the previous file's search must not land in this one.
    search: { ...initialSearchState, request: state.search.request + 1 },
  }
}

export function closeOutput<S extends OutputViewerState>(state: S): S {
  if (state.outputId === null) return state
  return {
    ...state,
    ...initialOutputViewerState,
    request: state.request + 1,
    search: { ...initialSearchState, request: state.search.request + 1 },
  }
}

/** Asks for the page starting at `offset` (clamped at 0); the same state if it is already shown or coming. */
export function goToOffset<S extends OutputViewerState>(state: S, offset: number): S {
  const target = Math.max(0, Math.floor(offset))
  if (state.outputId === null) return state
  if (target === state.offset && (state.loading || (state.page !== null && state.error === null))) return state
  return { ...state, offset: target, loading: true, request: state.request + 1, error: null }
}

export function pageLoaded<S extends OutputViewerState>(state: S, request: number, page: Page): S {
  if (request !== state.request) return state
  return { ...state, page, loading: false, error: null }
}

export function pageFailed<S extends OutputViewerState>(state: S, request: number, error: string): S {
  if (request !== state.request) return state
  return { ...state, loading: false, error }
}

function showMatch<S extends OutputViewerState>(state: S, search: SearchState): S {
  const line = search.matches[search.current]
  const moved = line === undefined ? state : goToOffset(state, pageOffsetOf(line))
  return { ...moved, search }
}

/** Starts a search from the top of the file; an empty query ends the search. */
export function startSearch<S extends OutputViewerState>(state: S, query: string): S {
  if (state.outputId === null) return state
  if (query === "")
    return state.search.query === ""
      ? state
      : { ...state, search: { ...initialSearchState, request: state.search.request + 1 } }
  return {
    ...state,
    search: {
      ...initialSearchState,
      query,
      scanFrom: 0,
      wanted: 0,
      loading: true,
      request: state.search.request + 1,
    },
  }
}

/** A batch of matches arrived: shows the match the person is waiting for, if it is among them. */
export function matchesLoaded<S extends OutputViewerState>(
  state: S,
  request: number,
  lines: ReadonlyArray<number>,
  nextOffset: number | null,
): S {
  if (request !== state.search.request) return state
  const matches = lines.length === 0 ? state.search.matches : [...state.search.matches, ...lines]
  const search: SearchState = { ...state.search, matches, scanFrom: nextOffset, loading: false, error: null }
  if (search.wanted >= 0 && search.wanted < matches.length)
    return showMatch(state, { ...search, current: search.wanted })
  // Past the last match of a fully searched file: wrap around to the first, as browsers do.
  if (search.wanted >= matches.length && nextOffset === null && matches.length > 0 && search.current >= 0)
    return showMatch(state, { ...search, current: 0, wanted: 0 })
  return { ...state, search: { ...search, wanted: search.current } }
}

export function matchesFailed<S extends OutputViewerState>(state: S, request: number, error: string): S {
  if (request !== state.search.request) return state
  return { ...state, search: { ...state.search, loading: false, error, wanted: state.search.current } }
}

/** Moves to the next match, fetching more when the known ones run out; wraps at the end. */
export function nextMatch<S extends OutputViewerState>(state: S): S {
  const search = state.search
  if (search.query === "" || search.loading) return state
  const wanted = search.current + 1
  if (wanted < search.matches.length) return showMatch(state, { ...search, current: wanted, wanted })
  if (search.scanFrom !== null)
    return { ...state, search: { ...search, wanted, loading: true, request: search.request + 1 } }
  if (search.matches.length === 0) return state
  return showMatch(state, { ...search, current: 0, wanted: 0 })
}

/** Moves to the previous match; from the first, wraps to the last once the whole file was searched. */
export function previousMatch<S extends OutputViewerState>(state: S): S {
  const search = state.search
  if (search.query === "" || search.loading || search.matches.length === 0) return state
  if (search.current > 0)
    return showMatch(state, { ...search, current: search.current - 1, wanted: search.current - 1 })
  if (search.scanFrom !== null) return state
  const last = search.matches.length - 1
  return last === search.current ? state : showMatch(state, { ...search, current: last, wanted: last })
}

/** "3 of 12", "3 of 12+" while more may follow, "No matches". */
export function matchSummary(search: SearchState): string {
  if (search.query === "") return ""
  if (search.matches.length === 0) return search.loading || search.scanFrom !== null ? "Searching…" : "No matches"
  const total = `${search.matches.length}${search.scanFrom === null ? "" : "+"}`
  return search.current < 0 ? `${total} matches` : `${search.current + 1} of ${total}`
}

export const selectViewerOutputId = (state: OutputViewerState) => state.outputId
export const selectViewerPage = (state: OutputViewerState) => state.page
export const selectViewerOffset = (state: OutputViewerState) => state.offset
export const selectViewerLoading = (state: OutputViewerState) => state.loading
export const selectViewerRequest = (state: OutputViewerState) => state.request
export const selectViewerError = (state: OutputViewerState) => state.error
export const selectSearch = (state: OutputViewerState) => state.search
/** The line number of the match shown, or `undefined`. */
export const selectCurrentMatchLine = (state: OutputViewerState) => state.search.matches[state.search.current]

export interface OutputViewerStore extends OutputViewerState {
  readonly open: (id: ToolOutputId) => void
  readonly close: () => void
  readonly goTo: (offset: number) => void
  readonly pageLoaded: (request: number, page: Page) => void
  readonly pageFailed: (request: number, error: string) => void
  readonly startSearch: (query: string) => void
  readonly matchesLoaded: (request: number, lines: ReadonlyArray<number>, nextOffset: number | null) => void
  readonly matchesFailed: (request: number, error: string) => void
  readonly next: () => void
  readonly previous: () => void
}

export const createOutputViewerStore = () =>
  create<OutputViewerStore>()((set) => ({
    ...initialOutputViewerState,
    open: (id) => set((state) => openOutput(state, id)),
    close: () => set((state) => closeOutput(state)),
    goTo: (offset) => set((state) => goToOffset(state, offset)),
    pageLoaded: (request, page) => set((state) => pageLoaded(state, request, page)),
    pageFailed: (request, error) => set((state) => pageFailed(state, request, error)),
    startSearch: (query) => set((state) => startSearch(state, query)),
    matchesLoaded: (request, lines, nextOffset) => set((state) => matchesLoaded(state, request, lines, nextOffset)),
    matchesFailed: (request, error) => set((state) => matchesFailed(state, request, error)),
    next: () => set((state) => nextMatch(state)),
    previous: () => set((state) => previousMatch(state)),
  }))

export const useOutputViewerStore = createOutputViewerStore()
