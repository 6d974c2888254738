import { create } from "zustand"
import type { AppEvent } from "@contract/events"
import type { PermissionRequestId, QuestionId, SessionId } from "@contract/ids"
import type { Snapshot } from "@contract/methods"
import type { PendingCall, PermissionRequest, QuestionRequest } from "@contract/model"
import { timestampOfId } from "../lib/time"

// The inbox: every pending ask and question, fed by `app.snapshot` and the event stream, plus the
// person's place in it (cursor, selection, the answer being written). Transitions are pure and
// return the same object when nothing changes (SG-17); the store's actions are one-line wrappers.
//
// Invariants:
// - An item is here exactly while the core has it pending: `*.replied|rejected|withdrawn` remove
//   it, a snapshot replaces the whole set (so an ask the core forgot never lingers), and an answer
//   that comes back "not found" removes it too.
// - Answers are bound to ids. Nothing here ever maps an answer from one item to another; when the
//   item under the cursor leaves, the cursor moves on but is not "armed" for ARM_DELAY_MS, so a
//   key pressed for the old card cannot answer the new one (RELIABILITY §5 item 22).

export type InboxItemId = PermissionRequestId | QuestionId

export interface InboxAsk {
  readonly kind: "ask"
  readonly id: PermissionRequestId
  readonly sessionID: SessionId
  /** When it was asked (the time in its id). */
  readonly askedAt: number
  readonly request: PermissionRequest
  /** The agent whose rules asked, when the snapshot named it; otherwise the session's agent applies. */
  readonly agent: string | null
  /** The tool call that asked (its name and input), when known. */
  readonly call: PendingCall | null
}

export interface InboxQuestion {
  readonly kind: "question"
  readonly id: QuestionId
  readonly sessionID: SessionId
  readonly askedAt: number
  readonly request: QuestionRequest
}

export type InboxItem = InboxAsk | InboxQuestion

/** What the person is writing: feedback for one ask, for every selected ask, or a session's reject-all. */
export type Composer =
  | { readonly kind: "feedback"; readonly id: PermissionRequestId }
  | { readonly kind: "selection" }
  | { readonly kind: "session"; readonly sessionID: SessionId }

export interface InboxState {
  /** Every pending item, oldest first (by the time in its id, then the id). */
  readonly ids: ReadonlyArray<InboxItemId>
  readonly byId: Readonly<Record<string, InboxItem>>
  /** Running tool calls (from `tool_call.*` events) by call key, to show the call behind a new ask. */
  readonly calls: Readonly<Record<string, PendingCall>>
  /** The card the keys act on. */
  readonly cursor: InboxItemId | null
  /** Keys may answer the cursor's card from this time on (ms since the epoch). */
  readonly armedAt: number
  /** What put the cursor where it is: keys (the list follows it), the pointer (it does not), or a card leaving. */
  readonly cursorBy: "keys" | "pointer" | "auto"
  /** Asks chosen for one answer to all (`x`), in the order they were chosen. */
  readonly selected: ReadonlyArray<PermissionRequestId>
  /** Items whose answer is on its way. */
  readonly sending: Readonly<Record<string, true>>
  /** Why the last answer to an item failed, for its card. */
  readonly failures: Readonly<Record<string, string>>
  readonly composer: Composer | null
  /** Said once when something the person was working on left by another hand. */
  readonly notice: string | null
}

/** How long after the cursor lands on a card by itself (its card left) before keys can answer it. */
export const ARM_DELAY_MS = 300

const EMPTY_RECORD: Readonly<Record<string, never>> = Object.freeze({})
const EMPTY_IDS: ReadonlyArray<never> = Object.freeze([])

export const initialInboxState: InboxState = {
  ids: EMPTY_IDS,
  byId: EMPTY_RECORD,
  calls: EMPTY_RECORD,
  cursor: null,
  armedAt: 0,
  cursorBy: "auto",
  selected: EMPTY_IDS,
  sending: EMPTY_RECORD,
  failures: EMPTY_RECORD,
  composer: null,
  notice: null,
}

export const GONE_NOTICE =
  "The ask you were answering is no longer pending: it was answered elsewhere or its tool call ended. Nothing was sent for it."

/** The key of a tool call: its session, message and call id. */
export const callKey = (sessionID: string, messageID: string, callID: string) =>
  `${sessionID}\u0000${messageID}\u0000${callID}`

const askCallKey = (request: PermissionRequest) =>
  request.source ? callKey(request.sessionID, request.source.messageID, request.source.callID) : undefined

const earlier = (a: InboxItem, b: InboxItem) => (a.askedAt !== b.askedAt ? a.askedAt < b.askedAt : a.id < b.id)

function askItem(
  request: PermissionRequest,
  askedAt: number,
  agent: string | null,
  call: PendingCall | null,
): InboxAsk {
  return { kind: "ask", id: request.id, sessionID: request.sessionID, askedAt, request, agent, call }
}

function questionItem(request: QuestionRequest, askedAt: number): InboxQuestion {
  return { kind: "question", id: request.id, sessionID: request.sessionID, askedAt, request }
}

const timeOf = (id: string) => {
  const time = timestampOfId(id)
  return Number.isNaN(time) ? 0 : time
}

// --- Display order ------------------------------------------------------------------------------

/** A session's pending items, oldest first; `blockedSince` is its oldest item's time. */
export interface InboxGroup {
  readonly sessionID: SessionId
  readonly blockedSince: number
  readonly itemIds: ReadonlyArray<InboxItemId>
}

/** One row of the list: a session header, or a card. */
export type InboxRow =
  | { readonly kind: "session"; readonly key: string; readonly group: InboxGroup }
  | { readonly kind: "item"; readonly key: string; readonly id: InboxItemId; readonly sessionID: SessionId }

export interface InboxDisplay {
  /** Sessions, the longest-blocked first. */
  readonly groups: ReadonlyArray<InboxGroup>
  /** Every card in display order (what `j`/`k` walk). */
  readonly order: ReadonlyArray<InboxItemId>
  readonly rows: ReadonlyArray<InboxRow>
  /** Index of each card's row in `rows`. */
  readonly rowIndex: ReadonlyMap<InboxItemId, number>
}

const displays = new WeakMap<ReadonlyArray<InboxItemId>, InboxDisplay>()

/**
 * Sessions ordered by how long they have been blocked (their oldest item first), each with its
 * items oldest first. Because `ids` is kept in time order, grouping in first-appearance order gives
 * exactly that. Cached per `ids` array: an item's session and time never change.
 */
export function selectDisplay(state: Pick<InboxState, "ids" | "byId">): InboxDisplay {
  const cached = displays.get(state.ids)
  if (cached) return cached
  const bySession = new Map<SessionId, { blockedSince: number; itemIds: Array<InboxItemId> }>()
  for (const id of state.ids) {
    const item = state.byId[id]
    if (!item) continue
    const group = bySession.get(item.sessionID)
    if (group) group.itemIds.push(id)
    else bySession.set(item.sessionID, { blockedSince: item.askedAt, itemIds: [id] })
  }
  const groups: Array<InboxGroup> = []
  const order: Array<InboxItemId> = []
  const rows: Array<InboxRow> = []
  const rowIndex = new Map<InboxItemId, number>()
  for (const [sessionID, group] of bySession) {
    const entry: InboxGroup = { sessionID, blockedSince: group.blockedSince, itemIds: group.itemIds }
    groups.push(entry)
    rows.push({ kind: "session", key: `session:${sessionID}`, group: entry })
    for (const id of group.itemIds) {
      order.push(id)
      rowIndex.set(id, rows.length)
      rows.push({ kind: "item", key: id, id, sessionID })
    }
  }
  const display = { groups, order, rows, rowIndex }
  displays.set(state.ids, display)
  return display
}

// --- Adding and removing ------------------------------------------------------------------------

/** Inserts items keeping time order; most arrive newest, so this is usually an append. */
function insertAll<S extends InboxState>(state: S, items: ReadonlyArray<InboxItem>, now: number): S {
  const fresh = items.filter((item) => state.byId[item.id] === undefined)
  if (fresh.length === 0) return state
  const byId: Record<string, InboxItem> = { ...state.byId }
  const ids = [...state.ids]
  for (const item of fresh) {
    byId[item.id] = item
    let index = ids.length
    while (index > 0 && earlier(item, byId[ids[index - 1]!]!)) index--
    ids.splice(index, 0, item.id)
  }
  const next = { ...state, ids, byId }
  if (next.cursor !== null) return next
  // A card that appears under an empty cursor is new to the person: not answerable by a stray key yet.
  return { ...next, cursor: selectDisplay(next).order[0] ?? null, armedAt: now + ARM_DELAY_MS, cursorBy: "auto" }
}

function withoutKeys<V>(record: Readonly<Record<string, V>>, gone: ReadonlySet<string>): Readonly<Record<string, V>> {
  let copy: Record<string, V> | undefined
  for (const key of Object.keys(record)) {
    if (!gone.has(key)) continue
    copy ??= { ...record }
    delete copy[key]
  }
  return copy ?? record
}

/**
 * Removes items. The cursor moves to the card after the one that left (else the one before), and
 * is disarmed; a composer for a removed item closes, with a notice unless our own answer removed it.
 */
function removeAll<S extends InboxState>(state: S, gone: ReadonlySet<string>, now: number): S {
  if (![...gone].some((id) => state.byId[id] !== undefined)) return state
  let cursor = state.cursor
  let armedAt = state.armedAt
  let cursorBy = state.cursorBy
  if (cursor !== null && gone.has(cursor)) {
    cursorBy = "auto"
    const order = selectDisplay(state).order
    const at = order.indexOf(cursor)
    cursor =
      order.slice(at + 1).find((id) => !gone.has(id)) ??
      order
        .slice(0, Math.max(at, 0))
        .reverse()
        .find((id) => !gone.has(id)) ??
      null
    armedAt = now + ARM_DELAY_MS
  }
  const ids = state.ids.filter((id) => !gone.has(id))
  const byId = withoutKeys(state.byId, gone)
  let composer = state.composer
  let notice = state.notice
  if (composer?.kind === "feedback" && gone.has(composer.id)) {
    if (!state.sending[composer.id]) notice = GONE_NOTICE
    composer = null
  }
  if (composer?.kind === "session") {
    const sessionID = composer.sessionID
    if (!ids.some((id) => byId[id]?.sessionID === sessionID)) composer = null
  }
  const selected = state.selected.some((id) => gone.has(id))
    ? state.selected.filter((id) => !gone.has(id))
    : state.selected
  if (composer?.kind === "selection" && selected.length === 0) composer = null
  return {
    ...state,
    ids,
    byId,
    cursor,
    armedAt,
    cursorBy,
    selected,
    sending: withoutKeys(state.sending, gone),
    failures: withoutKeys(state.failures, gone),
    composer,
    notice,
  }
}

// --- Events and snapshots -----------------------------------------------------------------------

/**
 * Applies a batch of events in order. An ask or question that is answered, dismissed or withdrawn
 * disappears; new ones are added with the running call behind them when it is known.
 */
export function applyInboxEvents<S extends InboxState>(state: S, events: ReadonlyArray<AppEvent>, now: number): S {
  let next = state
  let added: Array<InboxItem> = []
  let removed = new Set<string>()
  // Additions and removals are applied in runs, so an item added and removed in one batch is too.
  const flush = () => {
    if (added.length > 0) next = insertAll(next, added, now)
    if (removed.size > 0) next = removeAll(next, removed, now)
    added = []
    removed = new Set()
  }
  for (const event of events) {
    switch (event._tag) {
      case "permission.v2.asked": {
        if (removed.size > 0) flush()
        const key = askCallKey(event.request)
        const call = key === undefined ? null : (next.calls[key] ?? null)
        added.push(askItem(event.request, timeOf(event.request.id), null, call))
        break
      }
      case "question.v2.asked":
        if (removed.size > 0) flush()
        added.push(questionItem(event.request, timeOf(event.request.id)))
        break
      case "permission.v2.replied":
      case "permission.v2.withdrawn":
      case "question.v2.replied":
      case "question.v2.rejected":
      case "question.v2.withdrawn":
        if (added.some((item) => item.id === event.requestID)) flush()
        removed.add(event.requestID)
        break
      case "tool_call.started": {
        if (event.call.status !== "running") break
        const key = callKey(event.call.sessionID, event.call.messageID, event.call.callID)
        next = { ...next, calls: { ...next.calls, [key]: { tool: event.call.tool, input: event.call.input } } }
        break
      }
      case "tool_call.finished": {
        const key = callKey(event.call.sessionID, event.call.messageID, event.call.callID)
        if (next.calls[key] !== undefined) next = { ...next, calls: withoutKeys(next.calls, new Set([key])) }
        break
      }
      default:
        break
    }
  }
  flush()
  return next
}

export const applyInboxEvent = <S extends InboxState>(state: S, event: AppEvent, now: number): S =>
  applyInboxEvents(state, [event], now)

const sameAsk = (a: InboxAsk, b: InboxAsk) =>
  a.askedAt === b.askedAt && a.agent === b.agent && (a.call === null) === (b.call === null)

/**
 * Replaces every item with the snapshot's: an item the core no longer has pending goes, whatever
 * the events said. Items that did not change keep their objects, so their cards do not re-render.
 */
export function loadInboxSnapshot<S extends InboxState>(state: S, snapshot: Snapshot, now: number): S {
  const items: Array<InboxItem> = []
  for (const pending of snapshot.asks) {
    const fresh = askItem(pending.request, pending.askedAt, pending.agent, pending.call)
    const current = state.byId[fresh.id]
    items.push(current?.kind === "ask" && sameAsk(current, fresh) ? current : fresh)
  }
  for (const pending of snapshot.questions) {
    const current = state.byId[pending.request.id]
    items.push(current?.kind === "question" ? current : questionItem(pending.request, pending.askedAt))
  }
  items.sort((a, b) => (a.id === b.id ? 0 : earlier(a, b) ? -1 : 1))
  const present = new Set(items.map((item) => item.id))
  const gone = new Set(state.ids.filter((id) => !present.has(id)))
  let next = removeAll(state, gone, now)
  const unchanged =
    items.length === next.ids.length &&
    items.every((item, index) => next.ids[index] === item.id && next.byId[item.id] === item)
  if (!unchanged) {
    const byId: Record<string, InboxItem> = {}
    for (const item of items) byId[item.id] = item
    next = { ...next, ids: items.map((item) => item.id), byId }
    if (next.cursor === null && items.length > 0)
      next = { ...next, cursor: selectDisplay(next).order[0] ?? null, armedAt: now + ARM_DELAY_MS, cursorBy: "auto" }
  }
  // Running calls are learned again from events; a stale one must not be joined to a new ask.
  return next.calls === EMPTY_RECORD ? next : { ...next, calls: EMPTY_RECORD }
}

// --- The person's actions -----------------------------------------------------------------------

/** `j`/`k`: moves the cursor through the cards in display order; an explicit move arms at once. */
export function moveCursor<S extends InboxState>(state: S, delta: number, now: number): S {
  const order = selectDisplay(state).order
  if (order.length === 0) return state
  const at = state.cursor === null ? -1 : order.indexOf(state.cursor)
  const index = at === -1 ? 0 : Math.min(order.length - 1, Math.max(0, at + delta))
  const cursor = order[index]!
  return cursor === state.cursor && state.armedAt <= now && state.cursorBy === "keys"
    ? state
    : { ...state, cursor, armedAt: now, cursorBy: "keys" }
}

/** Puts the cursor on a card the person pointed at (armed at once). */
export function setCursor<S extends InboxState>(state: S, id: InboxItemId, now: number): S {
  if (state.byId[id] === undefined) return state
  return state.cursor === id && state.armedAt <= now
    ? state
    : { ...state, cursor: id, armedAt: now, cursorBy: "pointer" }
}

/** Whether keys may answer the cursor's card now. */
export const isArmed = (state: InboxState, now: number) => state.cursor !== null && now >= state.armedAt

/** `x`: adds an ask to the selection or takes it out. Questions cannot be selected. */
export function toggleSelected<S extends InboxState>(state: S, id: InboxItemId): S {
  const item = state.byId[id]
  if (item?.kind !== "ask") return state
  if (!state.selected.includes(item.id)) return { ...state, selected: [...state.selected, item.id] }
  const selected = state.selected.filter((other) => other !== id)
  const composer = selected.length === 0 && state.composer?.kind === "selection" ? null : state.composer
  return { ...state, selected, composer }
}

export const clearSelection = <S extends InboxState>(state: S): S =>
  state.selected.length === 0
    ? state
    : { ...state, selected: EMPTY_IDS, composer: state.composer?.kind === "selection" ? null : state.composer }

/** Marks answers as on their way (their cards disable their buttons). */
export function startSending<S extends InboxState>(state: S, ids: ReadonlyArray<InboxItemId>): S {
  const live = ids.filter((id) => state.byId[id] !== undefined && !state.sending[id])
  if (live.length === 0) return state
  const sending: Record<string, true> = { ...state.sending }
  for (const id of live) sending[id] = true
  return { ...state, sending, failures: withoutKeys(state.failures, new Set(live)) }
}

/** The answers were refused for a reason other than the items being gone: say so on their cards. */
export function answerFailed<S extends InboxState>(state: S, ids: ReadonlyArray<InboxItemId>, reason: string): S {
  const live = ids.filter((id) => state.byId[id] !== undefined)
  if (live.length === 0 && ids.every((id) => !state.sending[id])) return state
  const failures: Record<string, string> = { ...state.failures }
  for (const id of live) failures[id] = reason
  return { ...state, sending: withoutKeys(state.sending, new Set(ids)), failures }
}

/** The answer went through (its event removes the card); only clears the sending marks still left. */
function answerSent<S extends InboxState>(state: S, ids: ReadonlyArray<InboxItemId>): S {
  return ids.some((id) => state.sending[id]) ? { ...state, sending: withoutKeys(state.sending, new Set(ids)) } : state
}

/**
 * The core answered "not found": these items are no longer pending, whatever this UI believed.
 * They go at once rather than lingering as dead cards (a later snapshot agrees).
 */
export function answerGone<S extends InboxState>(state: S, ids: ReadonlyArray<InboxItemId>, now: number): S {
  const cleared = answerSent(state, ids)
  return removeAll(cleared, new Set(ids), now)
}

export function openComposer<S extends InboxState>(state: S, composer: Composer): S {
  if (composer.kind === "feedback" && state.byId[composer.id]?.kind !== "ask") return state
  if (composer.kind === "selection" && state.selected.length === 0) return state
  if (composer.kind === "session" && !state.ids.some((id) => state.byId[id]?.sessionID === composer.sessionID))
    return state
  return { ...state, composer }
}

export const closeComposer = <S extends InboxState>(state: S): S =>
  state.composer === null ? state : { ...state, composer: null }

export const dismissNotice = <S extends InboxState>(state: S): S =>
  state.notice === null ? state : { ...state, notice: null }

// --- Selectors ----------------------------------------------------------------------------------

export const selectPendingCount = (state: InboxState) => state.ids.length
export const selectItem = (id: InboxItemId) => (state: InboxState) => state.byId[id]
/** The cursor when the list should bring it into view (not when the pointer put it there). */
export const selectCursorToReveal = (state: InboxState) => (state.cursorBy === "pointer" ? null : state.cursor)
export const selectIsSelected = (id: InboxItemId) => (state: InboxState) =>
  (state.selected as ReadonlyArray<string>).includes(id)
export const selectSelected = (state: InboxState) => state.selected
export const selectIsSending = (id: InboxItemId) => (state: InboxState) => state.sending[id] === true
export const selectFailure = (id: InboxItemId) => (state: InboxState) => state.failures[id]
export const selectNotice = (state: InboxState) => state.notice
export const selectIsComposingFeedback = (id: InboxItemId) => (state: InboxState) =>
  state.composer?.kind === "feedback" && state.composer.id === id
export const selectIsComposingSelection = (state: InboxState) => state.composer?.kind === "selection"
export const selectIsComposingSession = (sessionID: SessionId) => (state: InboxState) =>
  state.composer?.kind === "session" && state.composer.sessionID === sessionID
/** The pending asks of a session, oldest first (what "reject all in this session" rejects). */
export const selectSessionAskCount = (sessionID: SessionId) => (state: InboxState) =>
  selectDisplay(state)
    .groups.find((group) => group.sessionID === sessionID)
    ?.itemIds.filter((id) => state.byId[id]?.kind === "ask").length ?? 0

// --- Store --------------------------------------------------------------------------------------

export interface InboxStore extends InboxState {
  readonly applyEvents: (events: ReadonlyArray<AppEvent>) => void
  readonly loadSnapshot: (snapshot: Snapshot) => void
  readonly moveCursor: (delta: number) => void
  readonly setCursor: (id: InboxItemId) => void
  readonly toggleSelected: (id: InboxItemId) => void
  readonly clearSelection: () => void
  readonly startSending: (ids: ReadonlyArray<InboxItemId>) => void
  readonly answerFailed: (ids: ReadonlyArray<InboxItemId>, reason: string) => void
  readonly answerGone: (ids: ReadonlyArray<InboxItemId>) => void
  readonly openComposer: (composer: Composer) => void
  readonly closeComposer: () => void
  readonly dismissNotice: () => void
}

export const createInboxStore = (clock: () => number = Date.now) =>
  create<InboxStore>()((set) => ({
    ...initialInboxState,
    applyEvents: (events) => set((state) => applyInboxEvents(state, events, clock())),
    loadSnapshot: (snapshot) => set((state) => loadInboxSnapshot(state, snapshot, clock())),
    moveCursor: (delta) => set((state) => moveCursor(state, delta, clock())),
    setCursor: (id) => set((state) => setCursor(state, id, clock())),
    toggleSelected: (id) => set((state) => toggleSelected(state, id)),
    clearSelection: () => set((state) => clearSelection(state)),
    startSending: (ids) => set((state) => startSending(state, ids)),
    answerFailed: (ids, reason) => set((state) => answerFailed(state, ids, reason)),
    answerGone: (ids) => set((state) => answerGone(state, ids, clock())),
    openComposer: (composer) => set((state) => openComposer(state, composer)),
    closeComposer: () => set((state) => closeComposer(state)),
    dismissNotice: () => set((state) => dismissNotice(state)),
  }))

export const useInboxStore = createInboxStore()
