import { Layer } from "effect"
import { AppInfo } from "@core/config/AppInfo"
import { Config } from "@core/config/Config"
import { DataDir } from "@core/config/DataDir"
import { EventBus } from "@core/events/EventBus"
import { Tokens } from "@core/auth/Tokens"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import { Store } from "@core/store/Store"
import { ApplicationTools } from "@core/tool/ApplicationTools"
import { ToolOutputStore } from "@core/output/ToolOutputStore"
import { Agents } from "@core/session/Agents"
import { AskSources } from "@core/permission/AskSources"
import { DecisionLog } from "@core/permission/DecisionLog"
import { SavedApprovals } from "@core/permission/SavedApprovals"
import { Todos } from "@core/session/Todos"
import { Questions } from "@core/session/Questions"
import { ToolCalls } from "@core/session/ToolCalls"
import { Locations } from "@core/location/Locations"
import { Runner } from "@core/session/Runner"
import { Blocking } from "@core/session/Blocking"
import { SessionControl } from "@core/session/SessionControl"
import { Connectors } from "@core/connector/Connectors"
import { FileMutation } from "@main/tools/support/FileMutation"
import { Builtins } from "@main/tools/builtins"

export interface AppOptions {
  readonly dataDir: string
  readonly host: "electron" | "headless"
  readonly version: string
  readonly env?: NodeJS.ProcessEnv
  /** better_sqlite3.node built for Electron (see README, "The Electron build of better-sqlite3"). */
  readonly nativeBinding?: string
}

/**
 * The one composition root (SG-8). The Electron main process and the headless host both build
 * this layer into one ManagedRuntime; they differ only in how the UI reaches it.
 */
export const makeAppLayer = (options: AppOptions) => {
  const platform = Layer.mergeAll(
    DataDir.layer(options.dataDir),
    AppInfo.layer({ name: "Gatehouse", version: options.version, host: options.host }),
  )
  const infrastructure = Layer.mergeAll(
    Config.layer(options.env ?? process.env),
    Store.layer(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
    EventBus.layer,
    Tokens.layer,
  )
  const domain = Layer.mergeAll(
    Projects.layer,
    Sessions.layer,
    ApplicationTools.layer,
    ToolOutputStore.layerWithRetention,
    Agents.layer,
    SavedApprovals.layer,
    // Building it marks asks a previous process left pending as interrupted (once per process).
    DecisionLog.layer,
    // Where the inbox finds pending asks and sends answers: Locations and connected servers register.
    AskSources.layer,
    Todos.layer,
    // Like DecisionLog: building it marks questions a previous process left pending as interrupted.
    Questions.layer,
    // Building it marks tool calls left running as interrupted and fails sessions left running.
    ToolCalls.layer,
    // One per process: file tools of every Location share its per-path locks.
    FileMutation.layer,
  )
  // Every Location registers the twelve built-in tools for as long as it lives.
  const locations = Locations.layer({ plugins: Builtins.layer })
  // Each supervised OpenCode server is its own fiber: one that cannot connect never blocks the rest.
  const sessions = Layer.mergeAll(
    Runner.layer({ env: options.env ?? process.env }),
    Blocking.layer,
    Connectors.layer({ env: options.env ?? process.env }),
  ).pipe(Layer.provideMerge(locations))
  // One door for "stop this session": the runner registers here, MCP ingress does when it runs.
  const control = SessionControl.runnerLayer.pipe(
    Layer.provideMerge(SessionControl.layer),
    Layer.provideMerge(sessions),
  )
  return control.pipe(Layer.provideMerge(domain), Layer.provideMerge(infrastructure), Layer.provideMerge(platform))
}

export type AppServices = Layer.Success<ReturnType<typeof makeAppLayer>>
