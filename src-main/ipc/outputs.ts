import { Effect } from "effect"
import type { ToolOutputId } from "@contract/ids"
import { OutputAccessError, OutputNotFoundError } from "@contract/methods"
import { ToolOutputStore } from "@core/output/ToolOutputStore"
import type { Handlers } from "./ContractServer"

// The outputs browser's side of the contract. Reading goes through ToolOutputStore's paged,
// streamed read, so a 50 MB output is never loaded whole, here or in the UI.

/** The services the outputs handlers use. */
export type OutputsServices = ToolOutputStore.Service

type OutputsMethod = "outputs.list" | "outputs.read" | "outputs.delete"

/** Core failures as the contract's errors (the cause of an access error stays in the logs). */
const asContractError =
  (id: ToolOutputId) =>
  (error: ToolOutputStore.NotFoundError | ToolOutputStore.AccessError): OutputNotFoundError | OutputAccessError =>
    error._tag === "ToolOutputStore.NotFoundError"
      ? new OutputNotFoundError({ id })
      : new OutputAccessError({ id, operation: error.operation })

const logAccess = (error: ToolOutputStore.NotFoundError | ToolOutputStore.AccessError) =>
  error._tag === "ToolOutputStore.AccessError"
    ? Effect.logWarning(
        `Tool output ${error.id} could not be ${error.operation === "read" ? "read" : "deleted"}`,
        error.cause,
      )
    : Effect.void

export const outputsHandlers: Pick<Handlers<OutputsServices>, OutputsMethod> = {
  "outputs.list": (input) =>
    Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      return yield* outputs.list({
        ...(input.sessionID !== undefined ? { sessionID: input.sessionID } : {}),
        ...(input.limit !== undefined ? { limit: input.limit } : {}),
      })
    }),
  "outputs.read": (input) =>
    Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const page = yield* outputs
        .read({
          id: input.id,
          ...(input.offset !== undefined ? { offset: input.offset } : {}),
          ...(input.limit !== undefined ? { limit: input.limit } : {}),
          ...(input.search ? { search: input.search } : {}),
        })
        .pipe(Effect.tapError(logAccess), Effect.mapError(asContractError(input.id)))
      return {
        output: page.output,
        lines: page.lines.map((line) => ({ number: line.number, text: line.text, cut: line.cut })),
        nextOffset: page.nextOffset ?? null,
      }
    }),
  "outputs.delete": (input) =>
    Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      yield* outputs.delete(input.id).pipe(Effect.tapError(logAccess), Effect.mapError(asContractError(input.id)))
      return null
    }),
}

/** Reads the managed outputs synchronously, for the snapshot's one `Effect.sync` (EventBus consistency rule). */
export const outputsReader = Effect.gen(function* () {
  const outputs = yield* ToolOutputStore.Service
  return () => outputs.listUnsafe()
})
