import { Effect, Layer, Schema } from "effect"
import type { Config } from "@core/config/Config"
import { newId } from "@core/id/Identifier"
import { Tool } from "@core/tool/Tool"
import { ToolRegistry } from "@core/tool/ToolRegistry"
import { coreTestLayer } from "../../../support/layers"

export const sessionID = newId.session()

/** One provider call as the runner hands it to `settle`. */
export const callOf = (name: string, input: unknown = {}, id = "call-1"): ToolRegistry.ExecuteInput => ({
  sessionID,
  agent: "build",
  assistantMessageID: "msg_1",
  call: { id, name, input },
})

/** A tool that answers `reply` and counts its calls in `calls`. */
export function replying(reply: string, calls?: Array<string>) {
  return Tool.make({
    description: `Replies ${reply}`,
    input: Schema.Struct({}),
    output: Schema.String,
    execute: () =>
      Effect.sync(() => {
        calls?.push(reply)
        return reply
      }),
  })
}

/** The real core (temp data dir, in-memory SQLite) plus one Location's registry. */
export const locationLayer = (dataDir: string, config?: Config.GatehouseConfig) =>
  ToolRegistry.layer.pipe(Layer.provideMerge(coreTestLayer({ dataDir, ...(config ? { config } : {}) })))

export const names = (materialized: ToolRegistry.Materialization) =>
  materialized.definitions.map((definition) => definition.name)
