import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { AppEvent } from "@contract/events"
import type { Snapshot } from "@contract/methods"
import {
  ARM_DELAY_MS,
  GONE_NOTICE,
  answerGone,
  applyInboxEvent,
  applyInboxEvents,
  createInboxStore,
  initialInboxState,
  isArmed,
  loadInboxSnapshot,
  moveCursor,
  openComposer,
  selectDisplay,
  selectSessionAskCount,
  startSending,
  toggleSelected,
  type InboxState,
} from "@renderer/state/inboxStore"
import { sessionId, snapshot } from "../support/fixtures"
import {
  T0,
  asked,
  pendingAsk,
  pendingQuestion,
  questionAsked,
  questionReplied,
  questionRequest,
  replied,
  request,
  toolCall,
  withdrawn,
} from "../support/inbox"

const now = T0 + 60_000
const withAsks = (seq: number, asks: Snapshot["asks"], questions: Snapshot["questions"] = []): Snapshot => ({
  ...snapshot(seq),
  asks,
  questions,
})

/** Applies events one batch at a time at `now`. */
const apply = (state: InboxState, ...events: ReadonlyArray<AppEvent>) => applyInboxEvents(state, events, now)

describe("inboxStore", () => {
  it("adds asks and questions from events in time order and returns the same state for other events", () => {
    const late = request(T0 + 20, 1)
    const early = request(T0 + 10, 2)
    const question = questionRequest(T0 + 15, 1)
    const state = apply(initialInboxState, asked(late), asked(early), questionAsked(question))
    expect(state.ids).toEqual([early.id, question.id, late.id])
    expect(state.byId[late.id]).toMatchObject({ kind: "ask", askedAt: T0 + 20, request: late, agent: null, call: null })
    expect(state.byId[question.id]).toMatchObject({ kind: "question", askedAt: T0 + 15 })
    const unrelated: AppEvent = { _tag: "session.todos.updated", sessionID: sessionId(1), todos: [] }
    expect(applyInboxEvent(state, unrelated, now)).toBe(state)
    expect(apply(state, asked(late))).toBe(state)
  })

  it("groups by session, the longest-blocked session first and each session's items oldest first", () => {
    const state = apply(
      initialInboxState,
      asked(request(T0 + 1, 2)),
      asked(request(T0 + 2, 1)),
      asked(request(T0 + 3, 2)),
      questionAsked(questionRequest(T0 + 4, 3)),
      asked(request(T0 + 5, 1)),
    )
    const display = selectDisplay(state)
    expect(display.groups.map((group) => [group.sessionID, group.blockedSince])).toEqual([
      [sessionId(2), T0 + 1],
      [sessionId(1), T0 + 2],
      [sessionId(3), T0 + 4],
    ])
    expect(display.order).toEqual([
      request(T0 + 1, 2).id,
      request(T0 + 3, 2).id,
      request(T0 + 2, 1).id,
      request(T0 + 5, 1).id,
      questionRequest(T0 + 4, 3).id,
    ])
    expect(display.rows.map((row) => row.kind)).toEqual([
      "session",
      "item",
      "item",
      "session",
      "item",
      "item",
      "session",
      "item",
    ])
    expect(display.rowIndex.get(request(T0 + 2, 1).id)).toBe(4)
    expect(selectDisplay(state)).toBe(display)
    expect(selectSessionAskCount(sessionId(3))(state)).toBe(0)
    expect(selectSessionAskCount(sessionId(2))(state)).toBe(2)
  })

  it("removes an item once it is answered, cascaded, auto-approved or withdrawn, and a question once it ends", () => {
    const [a, b, c] = [request(T0 + 1, 1), request(T0 + 2, 1), request(T0 + 3, 2)]
    const question = questionRequest(T0 + 4, 2)
    let state = apply(initialInboxState, asked(a), asked(b), asked(c), questionAsked(question))
    state = apply(state, replied(a, "reject"), replied(b, "reject"))
    expect(state.ids).toEqual([c.id, question.id])
    state = apply(state, withdrawn(c), questionReplied(question))
    expect(state.ids).toEqual([])
    expect(state.byId).toEqual({})
  })

  it("never shows an ask that was asked and answered within one batch", () => {
    const a = request(T0 + 1, 1)
    const b = request(T0 + 2, 1)
    const state = apply(initialInboxState, asked(a), replied(a), asked(b))
    expect(state.ids).toEqual([b.id])
  })

  it("joins a new ask to the running tool call behind it and forgets calls once they finish", () => {
    const edit = { path: "src/a.ts", oldString: "a", newString: "b" }
    const source = { type: "tool" as const, messageID: "msg_1", callID: "call_1" }
    let state = apply(initialInboxState, {
      _tag: "tool_call.started",
      call: toolCall(1, "msg_1", "call_1", "edit", edit),
    })
    const ask = request(T0 + 1, 1, { action: "edit", source })
    state = apply(state, asked(ask))
    expect(state.byId[ask.id]).toMatchObject({ call: { tool: "edit", input: edit } })
    state = apply(state, {
      _tag: "tool_call.finished",
      call: toolCall(1, "msg_1", "call_1", "edit", edit, "completed"),
    })
    expect(state.calls).toEqual({})
    const later = request(T0 + 2, 1, { source })
    expect(apply(state, asked(later)).byId[later.id]).toMatchObject({ call: null })
  })

  it("replaces everything from a snapshot, so an ask the core no longer has pending never lingers", () => {
    const [kept, forgotten] = [request(T0 + 1, 1), request(T0 + 2, 1)]
    const fresh = request(T0 + 3, 2)
    let state = apply(initialInboxState, asked(kept), asked(forgotten))
    const keptItem = state.byId[kept.id]
    state = loadInboxSnapshot(
      state,
      withAsks(9, [pendingAsk(kept), pendingAsk(fresh)], [pendingQuestion(questionRequest(T0 + 4, 3))]),
      now,
    )
    expect(state.ids).toEqual([kept.id, fresh.id, questionRequest(T0 + 4, 3).id])
    expect(state.byId[forgotten.id]).toBeUndefined()
    expect(state.byId[fresh.id]).toMatchObject({ agent: "build" })
    // The event said nothing of the agent; the snapshot does, so the item is replaced.
    expect(state.byId[kept.id]).not.toBe(keptItem)
    const again = loadInboxSnapshot(
      state,
      withAsks(10, [pendingAsk(kept), pendingAsk(fresh)], [pendingQuestion(questionRequest(T0 + 4, 3))]),
      now,
    )
    expect(again).toBe(state)
  })

  it("puts the cursor on the first card that arrives, not answerable by keys until it has been shown a moment", () => {
    const a = request(T0 + 1, 1)
    const state = apply(initialInboxState, asked(a))
    expect(state.cursor).toBe(a.id)
    expect(isArmed(state, now)).toBe(false)
    expect(isArmed(state, now + ARM_DELAY_MS)).toBe(true)
  })

  it("moves the cursor with j/k in display order, armed at once, and stops at the ends", () => {
    const [a, b, c] = [request(T0 + 1, 2), request(T0 + 2, 1), request(T0 + 3, 2)]
    let state = apply(initialInboxState, asked(a), asked(b), asked(c))
    state = moveCursor(state, 1, now)
    expect(state.cursor).toBe(c.id)
    expect(isArmed(state, now)).toBe(true)
    state = moveCursor(moveCursor(state, 1, now), 1, now)
    expect(state.cursor).toBe(b.id)
    expect(moveCursor(state, 1, now)).toBe(state)
    state = moveCursor(state, -5, now)
    expect(state.cursor).toBe(a.id)
  })

  it("moves the cursor to the next card when its card leaves, and disarms it so a stray key cannot answer that one", () => {
    const [a, b, c] = [request(T0 + 1, 1), request(T0 + 2, 1), request(T0 + 3, 1)]
    let state = moveCursor(apply(initialInboxState, asked(a), asked(b), asked(c)), 1, now)
    expect(state.cursor).toBe(b.id)
    state = applyInboxEvents(state, [replied(b)], now + 5)
    expect(state.cursor).toBe(c.id)
    expect(isArmed(state, now + 5)).toBe(false)
    expect(isArmed(state, now + 5 + ARM_DELAY_MS)).toBe(true)
    state = apply(state, replied(c))
    expect(state.cursor).toBe(a.id)
    state = apply(state, replied(a))
    expect(state.cursor).toBeNull()
  })

  it("closes the feedback box of an ask that another hand ended, with a notice, but not after its own answer", () => {
    const [a, b] = [request(T0 + 1, 1), request(T0 + 2, 2)]
    let state = apply(initialInboxState, asked(a), asked(b))
    state = openComposer(state, { kind: "feedback", id: a.id })
    const byOthers = apply(state, withdrawn(a))
    expect(byOthers.composer).toBeNull()
    expect(byOthers.notice).toBe(GONE_NOTICE)
    const byUs = apply(startSending(state, [a.id]), replied(a, "reject"))
    expect(byUs.composer).toBeNull()
    expect(byUs.notice).toBeNull()
    expect(byUs.sending).toEqual({})
  })

  it("selects asks (not questions) with x and drops answered ones from the selection", () => {
    const [a, b] = [request(T0 + 1, 1), request(T0 + 2, 1)]
    const question = questionRequest(T0 + 3, 1)
    let state = apply(initialInboxState, asked(a), asked(b), questionAsked(question))
    state = toggleSelected(toggleSelected(state, b.id), a.id)
    expect(state.selected).toEqual([b.id, a.id])
    expect(toggleSelected(state, question.id)).toBe(state)
    state = apply(state, replied(b))
    expect(state.selected).toEqual([a.id])
    expect(toggleSelected(state, a.id).selected).toEqual([])
  })

  it("removes items at once when the core answers that they are gone", () => {
    const [a, b] = [request(T0 + 1, 1), request(T0 + 2, 1)]
    let state = startSending(apply(initialInboxState, asked(a), asked(b)), [a.id])
    state = answerGone(state, [a.id], now)
    expect(state.ids).toEqual([b.id])
    expect(state.sending).toEqual({})
  })

  it("keeps exactly the pending set of any interleaving of asks, answers and snapshots, in time order", () => {
    const command = fc.oneof(
      fc.record({
        type: fc.constant("ask" as const),
        n: fc.integer({ min: 0, max: 30 }),
        session: fc.integer({ min: 1, max: 4 }),
      }),
      fc.record({ type: fc.constant("answer" as const), n: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ type: fc.constant("snapshot" as const) }),
    )
    fc.assert(
      fc.property(fc.array(fc.array(command, { maxLength: 6 }), { maxLength: 20 }), (batches) => {
        const pending = new Map<number, ReturnType<typeof request>>()
        let state: InboxState = initialInboxState
        for (const batch of batches) {
          const events: Array<AppEvent> = []
          for (const step of batch) {
            if (step.type === "ask" && !pending.has(step.n)) {
              const value = request(T0 + step.n, step.session)
              pending.set(step.n, value)
              events.push(asked(value))
            } else if (step.type === "answer" && pending.has(step.n)) {
              events.push(replied(pending.get(step.n)!))
              pending.delete(step.n)
            }
          }
          state = apply(state, ...events)
          if (batch.some((step) => step.type === "snapshot"))
            state = loadInboxSnapshot(
              state,
              withAsks(
                0,
                [...pending.values()].map((value) => pendingAsk(value)),
              ),
              now,
            )
          const expected = [...pending.keys()].sort((x, y) => x - y).map((n) => pending.get(n)!.id)
          expect(state.ids).toEqual(expected)
          expect(Object.keys(state.byId).sort()).toEqual([...expected].sort())
          expect(state.cursor === null).toBe(expected.length === 0)
          if (state.cursor !== null) expect(expected).toContain(state.cursor)
        }
      }),
      { numRuns: 300 },
    )
  })

  it("applies a batch with one set, through the store's actions", () => {
    const store = createInboxStore(() => now)
    let notified = 0
    store.subscribe(() => notified++)
    store.getState().applyEvents([asked(request(T0 + 1, 1)), asked(request(T0 + 2, 1))])
    expect(notified).toBe(1)
    store.getState().applyEvents([{ _tag: "session.todos.updated", sessionID: sessionId(1), todos: [] }])
    expect(notified).toBe(1)
    store.getState().moveCursor(1)
    expect(store.getState().cursor).toBe(request(T0 + 2, 1).id)
  })
})
