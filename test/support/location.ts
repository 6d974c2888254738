import { Effect, Layer, Queue, type Scope } from "effect"
import type { PermissionRequest, PermissionReply } from "@contract/model"
import type { SessionId } from "@contract/ids"
import { EventBus } from "@core/events/EventBus"
import { Location } from "@core/location/Location"
import { LocationMutation } from "@core/location/LocationMutation"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Sessions } from "@core/session/Sessions"
import { ToolRegistry } from "@core/tool/ToolRegistry"
import { coreTestLayer, type CoreTestOptions } from "./layers"

export interface LocationTestOptions extends CoreTestOptions {
  /** The project directory (a real temp directory). */
  readonly directory: string
}

/**
 * One real Location over the real core: Location, LocationMutation, PermissionV2 and a
 * ToolRegistry (with its narrow Tools) for `directory`, on a real SQLite database.
 */
export const locationTestLayer = (options: LocationTestOptions) =>
  Layer.mergeAll(PermissionV2.layer, ToolRegistry.layer).pipe(
    Layer.provideMerge(LocationMutation.layer),
    Layer.provideMerge(Location.layerFromDirectory(options.directory)),
    Layer.provideMerge(coreTestLayer(options)),
  )

/** A session in the test Location (agent `build` unless given). */
export const makeSession = (agent = "build") =>
  Effect.gen(function* () {
    const location = yield* Location.Service
    const sessions = yield* Sessions.Service
    return yield* sessions.create({ projectId: location.projectId, agent, title: "test", source: "runner" })
  })

/** Every `permission.v2.asked` request from now on, in order. */
export const watchAsks = Effect.gen(function* () {
  const bus = yield* EventBus.Service
  const subscription = yield* bus.subscribe(() => null)
  const asks = yield* Queue.unbounded<PermissionRequest>()
  yield* Effect.forkScoped(
    Effect.forever(
      Effect.gen(function* () {
        for (const envelope of yield* subscription.takeBatch)
          if (envelope.event._tag === "permission.v2.asked") Queue.offerUnsafe(asks, envelope.event.request)
      }),
    ),
  )
  return asks
})

/**
 * Answers each ask as it arrives with the reply `decide` returns (and records every ask seen), so a
 * tool call can run to completion inside one test.
 */
export const autoAnswer = (
  decide: (request: PermissionRequest) => { readonly reply: PermissionReply; readonly message?: string },
): Effect.Effect<ReadonlyArray<PermissionRequest>, never, Scope.Scope | EventBus.Service | PermissionV2.Service> =>
  Effect.gen(function* () {
    const permission = yield* PermissionV2.Service
    const asks = yield* watchAsks
    const seen: PermissionRequest[] = []
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          const ask = yield* Queue.take(asks)
          seen.push(ask)
          const answer = decide(ask)
          yield* permission
            .reply({ requestID: ask.id, reply: answer.reply, ...(answer.message ? { message: answer.message } : {}) })
            .pipe(Effect.ignore)
        }),
      ),
    )
    return seen
  })

export type { SessionId }
