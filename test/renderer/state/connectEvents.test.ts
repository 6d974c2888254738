import { describe, expect, it } from "vitest"
import { connectEvents, type Stores } from "@renderer/state/connectEvents"
import { createConnectionStore } from "@renderer/state/connectionStore"
import { createProjectsStore } from "@renderer/state/projectsStore"
import { createSessionsStore } from "@renderer/state/sessionsStore"
import { created, info, session, snapshot, updated } from "../support/fixtures"
import { memoryBridge } from "../support/memoryBridge"
import { settle, until } from "../support/until"

function setup(
  initial = snapshot(2, [session(1)]),
  transport?: { state: "open" | "offline" | "connecting"; epoch: number },
) {
  const sessions = createSessionsStore()
  const projects = createProjectsStore()
  const connection = createConnectionStore()
  const stores: Stores = { domains: [projects, sessions], connection }
  const main = memoryBridge({ snapshot: initial, info: info(initial.seq), ...(transport ? { transport } : {}) })
  const stop = connectEvents(main.bridge, stores, { retryMs: 1 })
  const live = () => until(connection, (state) => state.indicator === "live")
  return { sessions, projects, connection, main, stop, live }
}

const titles = (state: { ids: ReadonlyArray<string>; byId: Record<string, { title: string }> }) =>
  state.ids.map((id) => state.byId[id]!.title)

describe("connectEvents", () => {
  it("loads the snapshot, goes live, then applies only the events after the snapshot's sequence", async () => {
    const { sessions, main, live } = setup()
    await live()
    expect(titles(sessions.getState())).toEqual(["session 1"])
    main.push(created(2, session(9)), created(3, session(2)), updated(4, session(2, { title: "two" })))
    await until(sessions, (state) => state.ids.length === 2)
    expect(titles(sessions.getState())).toEqual(["session 1", "two"])
  })

  it("keeps events that arrive while the snapshot loads and applies those after it, none twice", async () => {
    const sessions = createSessionsStore()
    const connection = createConnectionStore()
    const main = memoryBridge({ snapshot: snapshot(3, [session(1), session(2)]), info: info(3) })
    main.hold()
    connectEvents(main.bridge, { domains: [sessions], connection })
    main.push(created(2, session(2)), created(3, session(9)))
    main.push(created(4, session(3)))
    main.release()
    await until(connection, (state) => state.indicator === "live")
    await until(sessions, (state) => state.ids.length === 3)
    expect(titles(sessions.getState())).toEqual(["session 1", "session 2", "session 3"])
  })

  it("hands each store one batch per tick: one notification for several pushes", async () => {
    const { sessions, main, live } = setup()
    await live()
    let notified = 0
    sessions.subscribe(() => notified++)
    main.push(created(3, session(2)))
    main.push(created(4, session(3)), created(5, session(4)))
    main.push(updated(6, session(2, { status: "blocked" })))
    await until(sessions, (state) => state.ids.length === 4)
    expect(notified).toBe(1)
  })

  it("reloads the snapshot when a sequence number is missing", async () => {
    const { sessions, main, live } = setup()
    await live()
    main.setSnapshot(snapshot(9, [session(1), session(5), session(6)]))
    main.push(created(3, session(5)), created(5, session(7)))
    await until(sessions, (state) => state.ids.length === 3 && state.byId[session(6).id] !== undefined)
    expect(titles(sessions.getState())).toEqual(["session 1", "session 5", "session 6"])
    expect(main.calls.filter((method) => method === "app.snapshot")).toHaveLength(2)
    main.push(created(10, session(8)))
    await until(sessions, (state) => state.ids.length === 4)
  })

  it("reloads the snapshot on every new connection, and shows offline in between", async () => {
    const { sessions, connection, main, live } = setup()
    await live()
    main.setTransport({ state: "offline", epoch: 1, problem: "Connection to Gatehouse lost. Reconnecting…" })
    expect(connection.getState().indicator).toBe("offline")
    expect(connection.getState().problem).toBe("Connection to Gatehouse lost. Reconnecting…")
    // A restarted host counts from zero again.
    main.setSnapshot(snapshot(1, [session(4)]))
    main.setInfo(info(1))
    main.setTransport({ state: "open", epoch: 2 })
    await until(connection, (state) => state.indicator === "live")
    expect(titles(sessions.getState())).toEqual(["session 4"])
    expect(connection.getState().problem).toBeNull()
    main.push(created(2, session(5)))
    await until(sessions, (state) => state.ids.length === 2)
  })

  it("reloads the snapshot when a batch does not match the contract", async () => {
    const { main, live, connection } = setup()
    await live()
    const errors: Array<unknown> = []
    const original = console.error
    console.error = (...args: Array<unknown>) => errors.push(args)
    try {
      main.pushRaw({ events: [{ seq: "three" }] })
      await until(connection, (state) => state.indicator === "live")
      await settle()
    } finally {
      console.error = original
    }
    expect(errors).toHaveLength(1)
    expect(main.calls.filter((method) => method === "app.snapshot")).toHaveLength(2)
  })

  it("retries the snapshot while the connection is up, saying why it is not live yet", async () => {
    const sessions = createSessionsStore()
    const connection = createConnectionStore()
    const main = memoryBridge({ snapshot: snapshot(1, [session(1)]), info: info(1) })
    main.failNext(1)
    const problems: Array<string | null> = []
    connection.subscribe((state) => problems.push(state.problem))
    connectEvents(main.bridge, { domains: [sessions], connection }, { retryMs: 1 })
    await until(connection, (state) => state.indicator === "live")
    expect(
      problems.some((problem) => problem?.startsWith("Cannot load Gatehouse's state (snapshot unavailable)")),
    ).toBe(true)
    expect(sessions.getState().ids).toHaveLength(1)
  })

  it("waits for a connection before asking for anything", async () => {
    const { connection, main } = setup(snapshot(0), { state: "offline", epoch: 0 })
    await settle()
    expect(main.calls).toEqual([])
    expect(connection.getState().indicator).toBe("offline")
    main.setTransport({ state: "open", epoch: 1 })
    await until(connection, (state) => state.indicator === "live")
  })

  it("stops applying anything once disconnected from the stores", async () => {
    const { sessions, main, live, stop } = setup()
    await live()
    stop()
    main.push(created(3, session(2)))
    await settle()
    expect(sessions.getState().ids).toHaveLength(1)
  })
})
