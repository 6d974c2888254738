import { create } from "zustand"
import type { AppEvent, ToolOutputFile } from "@contract/events"
import type { ToolOutputId } from "@contract/ids"
import type { Snapshot } from "@contract/methods"
import { emptyNormalized, replaceAll, shallowEqual, type Normalized } from "./normalized"

// Managed output files, newest first. A file that is deleted or swept while the view is open stays
// listed, marked with why it went, until the next snapshot: a row that silently vanished would
// leave the person wondering whether they misread the list.

export type Removal = "expired" | "deleted"

export interface OutputsState extends Normalized<ToolOutputId, ToolOutputFile> {
  readonly removed: Readonly<Record<string, Removal>>
}

const NOT_REMOVED: Readonly<Record<string, Removal>> = {}

export const initialOutputsState: OutputsState = {
  ...emptyNormalized<ToolOutputId, ToolOutputFile>(),
  removed: NOT_REMOVED,
}

const keyOf = (output: ToolOutputFile) => output.id

/** Applies a batch in order; the same object comes back when none of it concerns outputs. */
export function applyOutputsEvents<S extends OutputsState>(state: S, events: ReadonlyArray<AppEvent>): S {
  let ids: Array<ToolOutputId> | undefined
  let byId: Record<ToolOutputId, ToolOutputFile> | undefined
  let removed: Record<string, Removal> | undefined
  for (const event of events) {
    if (event._tag === "tool_output.created") {
      const output = event.output
      const current = (byId ?? state.byId)[output.id]
      if (current && shallowEqual(current, output)) continue
      byId ??= { ...state.byId }
      // Newest first: a new file goes to the top.
      if (!current) (ids ??= [...state.ids]).unshift(output.id)
      byId[output.id] = output
    } else if (event._tag === "tool_output.deleted") {
      if (!(byId ?? state.byId)[event.id] || (removed ?? state.removed)[event.id] === event.reason) continue
      removed ??= { ...state.removed }
      removed[event.id] = event.reason
    }
  }
  if (!ids && !byId && !removed) return state
  return { ...state, ids: ids ?? state.ids, byId: byId ?? state.byId, removed: removed ?? state.removed }
}

export function loadOutputsSnapshot<S extends OutputsState>(state: S, snapshot: Snapshot): S {
  const next = replaceAll(state, snapshot.outputs, keyOf)
  return next.removed === NOT_REMOVED ? next : { ...next, removed: NOT_REMOVED }
}

/** Where a file stands in its 7-day retention, as the table says it. */
export type Retention =
  | { readonly kind: "expires"; readonly days: number }
  | { readonly kind: "today" }
  | { readonly kind: "expired" }
  | { readonly kind: "deleted" }

const DAY = 24 * 60 * 60 * 1000
const startOfDay = (millis: number) => {
  const date = new Date(millis)
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime()
}

/**
 * `deleted` (removed on request), `expired` (swept, or past its time and awaiting the hourly
 * sweep), `today` (expires before local midnight) or `expires` in N calendar days.
 */
export function retentionOf(output: ToolOutputFile, removal: Removal | undefined, now: number): Retention {
  if (removal === "deleted") return { kind: "deleted" }
  if (removal === "expired" || output.expiresAt <= now) return { kind: "expired" }
  const days = Math.round((startOfDay(output.expiresAt) - startOfDay(now)) / DAY)
  return days <= 0 ? { kind: "today" } : { kind: "expires", days }
}

export function retentionLabel(retention: Retention): string {
  switch (retention.kind) {
    case "expires":
      return retention.days === 1 ? "expires tomorrow" : `expires in ${retention.days} days`
    case "today":
      return "expires today"
    case "expired":
      return "expired"
    case "deleted":
      return "deleted"
  }
}

/** The output kept at `path` (a tool call's `outputPaths` entry), if the list has it. */
export function outputIdAtPath(state: OutputsState, path: string): ToolOutputId | undefined {
  return state.ids.find((id) => state.byId[id]?.path === path)
}

export const selectOutputIds = (state: OutputsState) => state.ids
export const selectOutput = (id: ToolOutputId) => (state: OutputsState) => state.byId[id]
export const selectRemoval = (id: ToolOutputId) => (state: OutputsState) => state.removed[id]
export const selectOutputIdAtPath = (path: string) => (state: OutputsState) => outputIdAtPath(state, path)

export interface OutputsStore extends OutputsState {
  readonly applyEvents: (events: ReadonlyArray<AppEvent>) => void
  readonly loadSnapshot: (snapshot: Snapshot) => void
}

export const createOutputsStore = () =>
  create<OutputsStore>()((set) => ({
    ...initialOutputsState,
    applyEvents: (events) => set((state) => applyOutputsEvents(state, events)),
    loadSnapshot: (snapshot) => set((state) => loadOutputsSnapshot(state, snapshot)),
  }))

export const useOutputsStore = createOutputsStore()
