import { Cause, Context, Effect, Exit, Layer, Schema, Scope } from "effect"
import { EventBatchJson } from "@contract/wire"
import { EventBus } from "@core/events/EventBus"

export * as EventPush from "./EventPush"

/** Sends one encoded EventBatch to a window (`webContents.send(EventChannel, batch)`). */
export type Send = (batch: unknown) => void

export interface Interface {
  /**
   * Starts pushing every event published from now on to `send`, in batches, oldest first. The
   * subscription exists when this returns, so a snapshot the window asks for afterwards can never
   * miss an event. Returns the function that stops it (call it when the window closes); disposing
   * the runtime stops every feed.
   */
  readonly attach: (send: Send) => Effect.Effect<() => void>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/electron/EventPush") {}

const encodeBatch = Schema.encodeSync(EventBatchJson)

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const bus = yield* EventBus.Service
    const runtimeScope = yield* Effect.scope
    const attach = Effect.fn("EventPush.attach")(function* (send: Send) {
      const scope = yield* Scope.fork(runtimeScope)
      // Stops sends at once: closing the scope finishes asynchronously, the window is gone now.
      let open = true
      const subscription = yield* bus.subscribe(() => undefined).pipe(Scope.provide(scope))
      const pump = Effect.gen(function* () {
        const events = yield* subscription.takeBatch
        yield* Effect.sync(() => {
          if (open) send(encodeBatch({ events }))
        })
      }).pipe(Effect.forever)
      yield* pump.pipe(
        // A send to a window that is going away throws; the feed ends, the app carries on.
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.logWarning("A window's event feed stopped", cause),
        ),
        Effect.forkIn(scope),
      )
      return () => {
        open = false
        Effect.runFork(Scope.close(scope, Exit.void))
      }
    })
    return Service.of({ attach })
  }),
)
