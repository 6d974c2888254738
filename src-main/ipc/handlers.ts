import { Effect } from "effect"
import type { Snapshot } from "@contract/methods"
import { AppInfo } from "@core/config/AppInfo"
import { DataDir } from "@core/config/DataDir"
import { EventBus } from "@core/events/EventBus"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import type { Handlers } from "./ContractServer"
import { inboxHandlers, pendingReader, type InboxServices } from "./inbox"
import { approvalsHandlers, approvalsReader, type ApprovalsServices } from "./approvals"
import { outputsHandlers, outputsReader, type OutputsServices } from "./outputs"
import { sessionsHandlers, type SessionsServices } from "./sessions"
import { runnerHandlers, type RunnerServices } from "./runner"
import { connectorsHandlers, type ConnectorsServices } from "./connectors"
import { Connectors } from "@core/connector/Connectors"

/** The services the contract's handlers use. */
export type HandlerServices =
  | AppInfo.Service
  | DataDir.Service
  | EventBus.Service
  | Projects.Service
  | Sessions.Service
  | InboxServices
  | ApprovalsServices
  | OutputsServices
  | SessionsServices
  | RunnerServices
  | ConnectorsServices

/**
 * Reads everything the UI shows in one synchronous step, so the state and `seq` agree
 * (see EventBus's consistency rule).
 */
export const snapshot = Effect.gen(function* () {
  const bus = yield* EventBus.Service
  const projects = yield* Projects.Service
  const sessions = yield* Sessions.Service
  const pending = yield* pendingReader
  const approvals = yield* approvalsReader
  const outputs = yield* outputsReader
  const connectors = yield* Connectors.Service
  return yield* Effect.sync((): Snapshot => {
    const sessionList = sessions.listUnsafe()
    return {
      seq: bus.sequence(),
      projects: projects.listUnsafe(),
      sessions: sessionList,
      ...pending(sessionList),
      approvals: approvals(),
      outputs: outputs(),
      connectors: connectors.listUnsafe(),
    }
  })
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
  ...inboxHandlers,
  ...approvalsHandlers,
  ...outputsHandlers,
  ...sessionsHandlers,
  ...runnerHandlers,
  ...connectorsHandlers,
}
