import { assert } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Schema } from "effect"
import type { Method } from "@contract/channels"
import type { Config } from "@core/config/Config"
import { exitSchemaOf } from "@contract/wire"
import { Connectors } from "@core/connector/Connectors"
import { Locations } from "@core/location/Locations"
import { Runner } from "@core/session/Runner"
import { SessionControl } from "@core/session/SessionControl"
import { ToolCalls } from "@core/session/ToolCalls"
import { makeDispatcher } from "@main/ipc/ContractServer"
import { handlers, type HandlerServices } from "@main/ipc/handlers"
import { coreTestLayer } from "../../support/layers"
import { makeTempDir } from "../../support/temp"

// Calls contract methods the way both transports do (JSON payload in, encoded Exit out), against
// the real core over a temp data directory and a real SQLite database.

/** The whole handler map's services over real layers, composed like the app's root (config optional). */
export const contractTestLayer = (
  options: { readonly config?: Config.GatehouseConfig; readonly dataDir?: string } = {},
) => {
  const core = coreTestLayer({
    dataDir: options.dataDir ?? makeTempDir(),
    ...(options.config ? { config: options.config } : {}),
  })
  const locations = Layer.mergeAll(
    Locations.layer({ plugins: Layer.empty, idleTimeToLive: "1 minute" }),
    ToolCalls.layer,
    Connectors.layer({ env: {} }),
  ).pipe(Layer.provideMerge(core))
  const sessions = Runner.layer({ env: {} }).pipe(Layer.provideMerge(locations))
  return SessionControl.runnerLayer.pipe(Layer.provideMerge(SessionControl.layer), Layer.provideMerge(sessions))
}

/** Calls a method through the dispatcher and decodes the answer as the renderer does. */
export const call = (method: Method, payload?: unknown) =>
  Effect.gen(function* () {
    const context = yield* Effect.context<HandlerServices>()
    const dispatch = makeDispatcher(handlers, Effect.runPromiseWith(context))
    const answer = yield* Effect.promise(() =>
      dispatch(method, payload === undefined ? null : JSON.parse(JSON.stringify(payload))),
    )
    return Schema.decodeUnknownSync(exitSchemaOf(method))(answer) as Exit.Exit<unknown, { _tag: string }>
  })

/** The success value of an answer (fails the test otherwise). */
export const success = <A>(exit: Exit.Exit<unknown, unknown>): A => {
  if (Exit.isFailure(exit)) assert.fail(`expected success, got ${Cause.pretty(exit.cause)}`)
  return (exit as Exit.Success<A>).value
}

/** The typed failure of an answer (fails the test on success or a defect). */
export const failure = (exit: Exit.Exit<unknown, { _tag: string }>) => {
  if (Exit.isSuccess(exit)) return assert.fail("expected a failure")
  const found = Cause.findError(exit.cause)
  if (found._tag !== "Success") return assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.success as { _tag: string; message: string } & Record<string, unknown>
}
