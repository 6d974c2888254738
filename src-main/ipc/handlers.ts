import { Effect } from "effect"
import type { Snapshot } from "@contract/methods"
import { AppInfo } from "@core/config/AppInfo"
import { DataDir } from "@core/config/DataDir"
import { EventBus } from "@core/events/EventBus"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import type { Handlers } from "./ContractServer"

/** The services the contract's handlers use. */
export type HandlerServices = AppInfo.Service | DataDir.Service | EventBus.Service | Projects.Service | Sessions.Service

/**
 * Reads everything the UI shows in one synchronous step, so the state and `seq` agree
 * (see EventBus's consistency rule).
 */
export const snapshot = Effect.gen(function* () {
  const bus = yield* EventBus.Service
  const projects = yield* Projects.Service
  const sessions = yield* Sessions.Service
  return yield* Effect.sync((): Snapshot => ({
    seq: bus.sequence(),
    projects: projects.listUnsafe(),
    sessions: sessions.listUnsafe(),
  }))
})

export const handlers: Handlers<HandlerServices> = {
  "app.info": () =>
    Effect.gen(function* () {
      const info = yield* AppInfo.Service
      const dataDir = yield* DataDir.Service
      const bus = yield* EventBus.Service
      return { name: info.name, version: info.version, host: info.host, dataDir: dataDir.path, seq: bus.sequence() }
    }),
  "app.snapshot": () => snapshot,
}
