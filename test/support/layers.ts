import { Layer } from "effect"
import { AppInfo } from "@core/config/AppInfo"
import { Config } from "@core/config/Config"
import { DataDir } from "@core/config/DataDir"
import { EventBus } from "@core/events/EventBus"
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
import { FileMutation } from "@main/tools/support/FileMutation"

export interface CoreTestOptions {
  readonly dataDir: string
  readonly config?: Config.GatehouseConfig
  /** A real database file path; default an in-memory database. */
  readonly database?: string
}

/**
 * The real core services over a temp data directory and a real SQLite database (in memory by
 * default). Features extend this with their own layers.
 */
export const coreTestLayer = (options: CoreTestOptions) => {
  const platform = Layer.mergeAll(
    DataDir.layer(options.dataDir),
    AppInfo.layer({ name: "Gatehouse", version: "0.0.0-test", host: "headless" }),
    Config.layerValue(options.config ?? {}),
  )
  const infrastructure = Layer.mergeAll(
    options.database ? Store.layerFile(options.database) : Store.layerMemory,
    EventBus.layer,
  )
  return Layer.mergeAll(
    Projects.layer,
    Sessions.layer,
    ApplicationTools.layer,
    ToolOutputStore.layer,
    Agents.layer,
    SavedApprovals.layer,
    DecisionLog.layer,
    AskSources.layer,
    Todos.layer,
    Questions.layer,
    FileMutation.layer,
  ).pipe(Layer.provideMerge(infrastructure), Layer.provideMerge(platform))
}
