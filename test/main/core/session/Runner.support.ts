import { Effect, Layer, Queue, Result, type Scope } from "effect"
import type { AppEvent } from "@contract/events"
import type { SessionId } from "@contract/ids"
import type { SessionStatus } from "@contract/model"
import type { Config } from "@core/config/Config"
import { EventBus } from "@core/events/EventBus"
import { Locations } from "@core/location/Locations"
import { Blocking } from "@core/session/Blocking"
import { Runner } from "@core/session/Runner"
import { Scripted } from "@core/session/provider/Scripted"
import type { Provider } from "@core/session/provider/Provider"
import { ToolCalls } from "@core/session/ToolCalls"
import type { Tool } from "@core/tool/Tool"
import { Builtins } from "@main/tools/builtins"
import { coreTestLayer } from "../../../support/layers"

// The runner over the real core, real Locations and the real built-in tools it needs, on a real
// SQLite database and real temp directories.

/** The twelve built-in tools, registered in every Location as the app does. */
export const testTools = Builtins.layer

export interface RunnerTestOptions {
  readonly dataDir: string
  readonly config?: Config.GatehouseConfig
  readonly database?: string
  /** Registered in every Location (default {@link testTools}). */
  readonly plugins?: Layer.Layer<
    never,
    Tool.RegistrationError,
    Locations.LocationServices | Layer.Success<ReturnType<typeof coreTestLayer>>
  >
}

export const runnerTestLayer = (options: RunnerTestOptions) =>
  Layer.mergeAll(Runner.layer({ env: {} }), Blocking.layer).pipe(
    Layer.provideMerge(Locations.layer({ plugins: options.plugins ?? testTools, idleTimeToLive: "1 minute" })),
    Layer.provideMerge(ToolCalls.layer),
    Layer.provideMerge(coreTestLayer(options)),
  )

/** A scripted provider over JSONL lines given inline (one object per line). */
export function script(...turns: ReadonlyArray<Scripted.ScriptTurn>): Provider.Interface {
  const parsed = Scripted.parse("test.jsonl", turns.map((turn) => JSON.stringify(turn)).join("\n"))
  if (Result.isFailure(parsed)) throw new Error(parsed.failure)
  return Scripted.fromScript(parsed.success)
}

/** Every event from now on, in order. */
export const watchEvents: Effect.Effect<Queue.Queue<AppEvent>, never, Scope.Scope | EventBus.Service> = Effect.gen(
  function* () {
    const bus = yield* EventBus.Service
    const subscription = yield* bus.subscribe(() => null)
    const events = yield* Queue.unbounded<AppEvent>()
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          for (const envelope of yield* subscription.takeBatch) Queue.offerUnsafe(events, envelope.event)
        }),
      ),
    )
    return events
  },
)

/** Takes events until one matches, returning it. */
export const takeUntil = <A extends AppEvent>(events: Queue.Queue<AppEvent>, match: (event: AppEvent) => event is A) =>
  Effect.gen(function* () {
    while (true) {
      const event = yield* Queue.take(events)
      if (match(event)) return event
    }
  })

/** Waits for the session to reach `status` (as published by `session.updated`). */
export const statusReached = (events: Queue.Queue<AppEvent>, sessionID: SessionId, status: SessionStatus) =>
  takeUntil(
    events,
    (event): event is Extract<AppEvent, { _tag: "session.updated" }> =>
      event._tag === "session.updated" && event.session.id === sessionID && event.session.status === status,
  )

/** Waits for the next permission ask of the session. */
export const nextAsk = (events: Queue.Queue<AppEvent>, sessionID: SessionId) =>
  takeUntil(
    events,
    (event): event is Extract<AppEvent, { _tag: "permission.v2.asked" }> =>
      event._tag === "permission.v2.asked" && event.request.sessionID === sessionID,
  ).pipe(Effect.map((event) => event.request))
