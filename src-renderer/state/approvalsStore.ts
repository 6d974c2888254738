import { create } from "zustand"
import type { AppEvent } from "@contract/events"
import type { ProjectId, SavedApprovalId } from "@contract/ids"
import type { Snapshot } from "@contract/methods"
import type { AgentInfo, ApprovalEntry, ApprovalOrigin, ApprovalShadow, SavedApproval } from "@contract/model"
import { emptyNormalized, replaceAll, upsertAll, type Normalized } from "./normalized"

// Saved approvals: the rows come from the snapshot and `approval.*` events (so they are always
// current); what the editor shows beside each row (its origin, whether a configured deny shadows
// it) is fetched with `approvals.list` for the rows that lack it. An annotation remembers the
// resource it was computed for, so an edited pattern is annotated again.

/** Origin and shadowing of one approval, as computed for `resource`. */
export interface Annotation {
  readonly resource: string
  readonly origin: ApprovalOrigin | null
  readonly shadowedBy: ReadonlyArray<ApprovalShadow>
}

export interface ApprovalsState extends Normalized<SavedApprovalId, SavedApproval> {
  readonly annotations: Readonly<Record<string, Annotation>>
  /** The configured agents and their rules; `null` until loaded (they only change with a restart). */
  readonly agents: ReadonlyArray<AgentInfo> | null
  /** Why the agents or annotations could not be loaded, for the person. */
  readonly problem: string | null
}

const NO_ANNOTATIONS: Readonly<Record<string, Annotation>> = {}

export const initialApprovalsState: ApprovalsState = {
  ...emptyNormalized<SavedApprovalId, SavedApproval>(),
  annotations: NO_ANNOTATIONS,
  agents: null,
  problem: null,
}

const keyOf = (approval: SavedApproval) => approval.id

function removeIds<S extends ApprovalsState>(state: S, removed: ReadonlySet<string>): S {
  const present = state.ids.filter((id) => removed.has(id))
  if (present.length === 0) return state
  const byId = { ...state.byId }
  const annotations = { ...state.annotations }
  for (const id of present) {
    delete byId[id]
    delete annotations[id]
  }
  return { ...state, ids: state.ids.filter((id) => !removed.has(id)), byId, annotations }
}

/** Applies a batch in order; the same object comes back when none of it concerns approvals. */
export function applyApprovalsEvents<S extends ApprovalsState>(state: S, events: ReadonlyArray<AppEvent>): S {
  let next = state
  let changed: Array<SavedApproval> = []
  const flush = () => {
    if (changed.length > 0) next = upsertAll(next, changed, keyOf)
    changed = []
  }
  for (const event of events) {
    switch (event._tag) {
      case "approval.added":
      case "approval.updated":
        changed.push(event.approval)
        break
      case "approval.removed":
        flush()
        next = removeIds(next, new Set([event.id]))
        break
      default:
        break
    }
  }
  flush()
  return next
}

/**
 * A snapshot replaces the rows. Annotations and agents are dropped: after a reconnect the host
 * may have restarted with another configuration, so they are fetched again.
 */
export function loadApprovalsSnapshot<S extends ApprovalsState>(state: S, snapshot: Snapshot): S {
  const next = replaceAll(state, snapshot.approvals, keyOf)
  if (next.annotations === NO_ANNOTATIONS && next.agents === null && next.problem === null) return next
  return { ...next, annotations: NO_ANNOTATIONS, agents: null, problem: null }
}

/** Stores annotations fetched for some approvals. */
export function annotationsLoaded<S extends ApprovalsState>(state: S, entries: ReadonlyArray<ApprovalEntry>): S {
  if (entries.length === 0) return state.problem === null ? state : { ...state, problem: null }
  const annotations = { ...state.annotations }
  for (const entry of entries) {
    annotations[entry.approval.id] = {
      resource: entry.approval.resource,
      origin: entry.origin,
      shadowedBy: entry.shadowedBy,
    }
  }
  return { ...state, annotations, problem: null }
}

export function agentsLoaded<S extends ApprovalsState>(state: S, agents: ReadonlyArray<AgentInfo>): S {
  return { ...state, agents, problem: null }
}

export function approvalsProblem<S extends ApprovalsState>(state: S, problem: string): S {
  return state.problem === problem ? state : { ...state, problem }
}

/** Approvals without an annotation for their current resource, in list order. */
export function unannotatedIds(
  state: Pick<ApprovalsState, "ids" | "byId" | "annotations">,
): ReadonlyArray<SavedApprovalId> {
  return state.ids.filter((id) => state.annotations[id]?.resource !== state.byId[id]?.resource)
}

export const selectApprovalIds = (state: ApprovalsState) => state.ids
export const selectApprovalsById = (state: ApprovalsState) => state.byId
export const selectAnnotations = (state: ApprovalsState) => state.annotations
export const selectAgents = (state: ApprovalsState) => state.agents
export const selectApprovalsProblem = (state: ApprovalsState) => state.problem
export const selectApprovalCount = (state: ApprovalsState) => state.ids.length
export const selectApproval = (id: SavedApprovalId) => (state: ApprovalsState) => state.byId[id]
export const selectAnnotation = (id: SavedApprovalId) => (state: ApprovalsState) => state.annotations[id]

// --- Shadowing, as the editor weighs it ----------------------------------------------------------

/**
 * How much a configured deny takes from an approval: `all` = it does nothing for any agent a
 * session can run as; `primary` = it does nothing for some primary agent (the ones people start
 * sessions with); `subagents` = only subagents' rules deny it (explore denies every bash call, so
 * this is common and worth a note, not an alarm); `none`.
 */
export type ShadowSeverity = "none" | "subagents" | "primary" | "all"

export function shadowSeverity(
  shadowedBy: ReadonlyArray<ApprovalShadow>,
  agents: ReadonlyArray<AgentInfo> | null,
): ShadowSeverity {
  if (shadowedBy.length === 0) return "none"
  // Until the agents are known, any shadow counts as one that matters.
  if (agents === null) return "primary"
  const runnable = agents.filter((agent) => !agent.hidden)
  const shadowed = new Set(shadowedBy.map((shadow) => shadow.agent))
  if (runnable.length > 0 && runnable.every((agent) => shadowed.has(agent.name))) return "all"
  return runnable.some((agent) => agent.mode === "primary" && shadowed.has(agent.name)) ? "primary" : "subagents"
}

// --- Grouping for the editor: project → action → resource --------------------------------------

export interface ApprovalFilter {
  /** Case-insensitive text found in the action, the resource pattern or the project's name. */
  readonly text: string
  /** One project, or all. */
  readonly projectID: ProjectId | null
  /** Only approvals a configured deny makes ineffective for a primary agent (or for every agent). */
  readonly shadowedOnly: boolean
}

export const noApprovalFilter: ApprovalFilter = { text: "", projectID: null, shadowedOnly: false }

export interface ActionGroup {
  readonly action: string
  /** Sorted by resource pattern. */
  readonly ids: ReadonlyArray<SavedApprovalId>
}

export interface ProjectGroup {
  readonly projectID: ProjectId
  /** Sorted by action. */
  readonly actions: ReadonlyArray<ActionGroup>
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The approvals that pass `filter`, grouped by project (in `projectOrder`, unknown projects last),
 * then by action, then sorted by resource. Pure; the view memoizes it on its inputs.
 */
export function groupApprovals(
  state: Pick<ApprovalsState, "ids" | "byId" | "annotations" | "agents">,
  filter: ApprovalFilter,
  projectName: (id: ProjectId) => string | undefined,
  projectOrder: ReadonlyArray<ProjectId>,
): ReadonlyArray<ProjectGroup> {
  const needle = filter.text.trim().toLowerCase()
  const byProject = new Map<ProjectId, Map<string, Array<SavedApproval>>>()
  for (const id of state.ids) {
    const approval = state.byId[id]
    if (!approval) continue
    if (filter.projectID !== null && approval.projectID !== filter.projectID) continue
    if (filter.shadowedOnly) {
      const severity = shadowSeverity(state.annotations[id]?.shadowedBy ?? [], state.agents)
      if (severity !== "primary" && severity !== "all") continue
    }
    if (
      needle &&
      !approval.action.toLowerCase().includes(needle) &&
      !approval.resource.toLowerCase().includes(needle) &&
      !(projectName(approval.projectID) ?? "").toLowerCase().includes(needle)
    )
      continue
    let actions = byProject.get(approval.projectID)
    if (!actions) byProject.set(approval.projectID, (actions = new Map()))
    const list = actions.get(approval.action)
    if (list) list.push(approval)
    else actions.set(approval.action, [approval])
  }
  const rank = new Map(projectOrder.map((id, index) => [id, index]))
  return [...byProject.entries()]
    .sort(([a], [b]) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity) || compare(a, b))
    .map(([projectID, actions]) => ({
      projectID,
      actions: [...actions.entries()]
        .sort(([a], [b]) => compare(a, b))
        .map(([action, approvals]) => ({
          action,
          ids: approvals.sort((a, b) => compare(a.resource, b.resource) || compare(a.id, b.id)).map(keyOf),
        })),
    }))
}

export interface ApprovalsStore extends ApprovalsState {
  readonly applyEvents: (events: ReadonlyArray<AppEvent>) => void
  readonly loadSnapshot: (snapshot: Snapshot) => void
  readonly annotationsLoaded: (entries: ReadonlyArray<ApprovalEntry>) => void
  readonly agentsLoaded: (agents: ReadonlyArray<AgentInfo>) => void
  readonly failed: (problem: string) => void
}

export const createApprovalsStore = () =>
  create<ApprovalsStore>()((set) => ({
    ...initialApprovalsState,
    applyEvents: (events) => set((state) => applyApprovalsEvents(state, events)),
    loadSnapshot: (snapshot) => set((state) => loadApprovalsSnapshot(state, snapshot)),
    annotationsLoaded: (entries) => set((state) => annotationsLoaded(state, entries)),
    agentsLoaded: (agents) => set((state) => agentsLoaded(state, agents)),
    failed: (problem) => set((state) => approvalsProblem(state, problem)),
  }))

export const useApprovalsStore = createApprovalsStore()
