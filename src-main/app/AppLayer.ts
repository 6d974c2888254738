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
  )
  return domain.pipe(Layer.provideMerge(infrastructure), Layer.provideMerge(platform))
}

export type AppServices = Layer.Success<ReturnType<typeof makeAppLayer>>
