import { describe, expect, it } from "vitest"
import {
  applyTransport,
  initialConnectionState,
  markLive,
  markSyncFailed,
  markSyncing,
} from "@renderer/state/connectionStore"
import { info } from "../support/fixtures"

describe("connectionStore", () => {
  it("is live only after a sync, not merely when the transport opens", () => {
    const open = applyTransport(initialConnectionState, { state: "open", epoch: 1 })
    expect(open.indicator).toBe("connecting")
    const live = markLive(markSyncing(open), info())
    expect(live.indicator).toBe("live")
    expect(live.info).toEqual(info())
  })

  it("goes offline with the transport's explanation and clears it once live again", () => {
    const offline = applyTransport(markLive(initialConnectionState, info()), {
      state: "offline",
      epoch: 1,
      problem: "Connection to Gatehouse lost. Reconnecting…",
    })
    expect(offline.indicator).toBe("offline")
    expect(offline.problem).toBe("Connection to Gatehouse lost. Reconnecting…")
    expect(offline.info).toEqual(info())
    expect(markLive(offline, info()).problem).toBeNull()
  })

  it("returns the same object when nothing changes", () => {
    const syncing = markSyncing(initialConnectionState)
    expect(syncing).toBe(initialConnectionState)
    const failed = markSyncFailed(syncing, "no")
    expect(markSyncFailed(failed, "no")).toBe(failed)
    const live = markLive(failed, info())
    expect(markLive(live, live.info!)).toBe(live)
  })
})
