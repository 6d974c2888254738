import { create } from "zustand"
import type { AppEvent } from "@contract/events"
import type { SessionId } from "@contract/ids"
import type { SessionDetail } from "@contract/methods"
import type { PermissionDecision, Todo, ToolCall } from "@contract/model"

// The open session's detail: its tool-call timeline, its todos and its decisions. It is fetched
// with `sessions.get` and then kept current by events. Events that arrive while a fetch is out are
// held and replayed on top of its answer: each one carries a whole value (a call, a todo list), so
// replaying one the answer already reflects changes nothing, and none can be lost in between.
// Decisions have no event of their own; a permission event of the session marks them stale and the
// view fetches them again (`decisionsWanted` > `decisionsHave`).

export type DetailStatus = "closed" | "loading" | "ready" | "reloading" | "error"

export interface SessionDetailState {
  readonly sessionID: SessionId | null
  readonly status: DetailStatus
  /** Bumped whenever the detail must be fetched (again); an answer to an older fetch is ignored. */
  readonly generation: number
  readonly error: string | null
  /** Call keys in the order the calls started. */
  readonly callKeys: ReadonlyArray<string>
  readonly calls: Readonly<Record<string, ToolCall>>
  readonly todos: ReadonlyArray<Todo>
  /** Newest first. */
  readonly decisions: ReadonlyArray<PermissionDecision>
  readonly decisionsWanted: number
  readonly decisionsHave: number
  /** Events of this session received while a fetch was out. */
  readonly held: ReadonlyArray<AppEvent>
}

const NONE: ReadonlyArray<never> = []
const NO_CALLS: Readonly<Record<string, ToolCall>> = {}

export const initialSessionDetailState: SessionDetailState = {
  sessionID: null,
  status: "closed",
  generation: 0,
  error: null,
  callKeys: NONE,
  calls: NO_CALLS,
  todos: NONE,
  decisions: NONE,
  decisionsWanted: 0,
  decisionsHave: 0,
  held: NONE,
}

/** A call is named by its message and call id within its session. */
export const callKey = (call: Pick<ToolCall, "messageID" | "callID">) => `${call.messageID}\u0000${call.callID}`

/** The session an event concerns, if it is one the detail follows. */
function sessionOf(event: AppEvent): SessionId | undefined {
  switch (event._tag) {
    case "tool_call.started":
    case "tool_call.finished":
      return event.call.sessionID
    case "session.todos.updated":
    case "permission.v2.replied":
    case "permission.v2.withdrawn":
      return event.sessionID
    case "permission.v2.asked":
      return event.request.sessionID
    default:
      return undefined
  }
}

export function openSession<S extends SessionDetailState>(state: S, sessionID: SessionId): S {
  if (state.sessionID === sessionID && state.status !== "error") return state
  return {
    ...state,
    ...initialSessionDetailState,
    sessionID,
    status: "loading",
    generation: state.generation + 1,
  }
}

export function closeSession<S extends SessionDetailState>(state: S): S {
  if (state.sessionID === null) return state
  return { ...state, ...initialSessionDetailState, generation: state.generation + 1 }
}

/** Applies call and todo events directly; a permission event only marks the decisions stale. */
function apply<S extends SessionDetailState>(state: S, events: ReadonlyArray<AppEvent>): S {
  let callKeys: Array<string> | undefined
  let calls: Record<string, ToolCall> | undefined
  let todos = state.todos
  let decisionsWanted = state.decisionsWanted
  for (const event of events) {
    if (sessionOf(event) !== state.sessionID) continue
    switch (event._tag) {
      case "tool_call.started":
      case "tool_call.finished": {
        const key = callKey(event.call)
        const current = (calls ?? state.calls)[key]
        // A call ends once; a late `started` never turns a finished call back into a running one.
        if (current && current.status !== "running" && event.call.status === "running") break
        calls ??= { ...state.calls }
        if (!current) (callKeys ??= [...state.callKeys]).push(key)
        calls[key] = event.call
        break
      }
      case "session.todos.updated":
        todos = event.todos
        break
      default:
        decisionsWanted += 1
    }
  }
  if (!calls && todos === state.todos && decisionsWanted === state.decisionsWanted) return state
  return {
    ...state,
    callKeys: callKeys ?? state.callKeys,
    calls: calls ?? state.calls,
    todos,
    decisionsWanted,
  }
}

export function applySessionDetailEvents<S extends SessionDetailState>(state: S, events: ReadonlyArray<AppEvent>): S {
  if (state.sessionID === null) return state
  if (state.status === "loading" || state.status === "reloading") {
    const mine = events.filter((event) => sessionOf(event) === state.sessionID)
    return mine.length === 0 ? state : { ...state, held: [...state.held, ...mine] }
  }
  if (state.status !== "ready") return state
  return apply(state, events)
}

/** The answer to fetch `generation`: becomes the detail, with the held events replayed on top. */
export function detailLoaded<S extends SessionDetailState>(state: S, generation: number, detail: SessionDetail): S {
  if (generation !== state.generation || detail.session.id !== state.sessionID) return state
  const calls: Record<string, ToolCall> = {}
  for (const call of detail.toolCalls) calls[callKey(call)] = call
  const loaded: S = {
    ...state,
    status: "ready",
    error: null,
    callKeys: detail.toolCalls.map(callKey),
    calls,
    todos: detail.todos,
    decisions: detail.decisions,
    decisionsHave: state.decisionsWanted,
    held: NONE,
  }
  return apply(loaded, state.held)
}

export function detailFailed<S extends SessionDetailState>(state: S, generation: number, error: string): S {
  if (generation !== state.generation) return state
  return { ...state, status: "error", error, held: NONE }
}

/** The decisions fetched when `decisionsWanted` was `wanted`. */
export function decisionsLoaded<S extends SessionDetailState>(
  state: S,
  sessionID: SessionId,
  wanted: number,
  decisions: ReadonlyArray<PermissionDecision>,
): S {
  if (sessionID !== state.sessionID || wanted < state.decisionsHave) return state
  return { ...state, decisions, decisionsHave: wanted }
}

/**
 * A fresh snapshot means events may have been missed (reconnect, gap): fetch the detail again,
 * keeping what is shown until the answer comes.
 */
export function reloadSessionDetail<S extends SessionDetailState>(state: S): S {
  if (state.sessionID === null) return state
  return {
    ...state,
    status: state.status === "ready" ? "reloading" : "loading",
    generation: state.generation + 1,
    held: NONE,
  }
}

export const selectDetailSessionId = (state: SessionDetailState) => state.sessionID
export const selectDetailStatus = (state: SessionDetailState) => state.status
export const selectDetailGeneration = (state: SessionDetailState) => state.generation
export const selectDetailError = (state: SessionDetailState) => state.error
export const selectCallKeys = (state: SessionDetailState) => state.callKeys
export const selectCall = (key: string) => (state: SessionDetailState) => state.calls[key]
export const selectTodos = (state: SessionDetailState) => state.todos
export const selectDecisions = (state: SessionDetailState) => state.decisions
/** The `decisionsWanted` to fetch for, or 0 when the decisions shown are current. */
export const selectStaleDecisions = (state: SessionDetailState) =>
  state.status === "ready" && state.decisionsWanted > state.decisionsHave ? state.decisionsWanted : 0

export interface SessionDetailStore extends SessionDetailState {
  readonly open: (sessionID: SessionId) => void
  readonly close: () => void
  readonly applyEvents: (events: ReadonlyArray<AppEvent>) => void
  readonly loadSnapshot: () => void
  readonly loaded: (generation: number, detail: SessionDetail) => void
  readonly failed: (generation: number, error: string) => void
  readonly decisionsLoaded: (sessionID: SessionId, wanted: number, decisions: ReadonlyArray<PermissionDecision>) => void
}

export const createSessionDetailStore = () =>
  create<SessionDetailStore>()((set) => ({
    ...initialSessionDetailState,
    open: (sessionID) => set((state) => openSession(state, sessionID)),
    close: () => set((state) => closeSession(state)),
    applyEvents: (events) => set((state) => applySessionDetailEvents(state, events)),
    loadSnapshot: () => set((state) => reloadSessionDetail(state)),
    loaded: (generation, detail) => set((state) => detailLoaded(state, generation, detail)),
    failed: (generation, error) => set((state) => detailFailed(state, generation, error)),
    decisionsLoaded: (sessionID, wanted, decisions) =>
      set((state) => decisionsLoaded(state, sessionID, wanted, decisions)),
  }))

export const useSessionDetailStore = createSessionDetailStore()
