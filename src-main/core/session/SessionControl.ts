import { Context, Effect, Layer, type Scope } from "effect"
import type { SessionId } from "@contract/ids"
import { Runner } from "./Runner"
import { Sessions } from "./Sessions"

export * as SessionControl from "./SessionControl"

/** Whoever runs sessions in this process (the built-in runner, MCP ingress) and can stop them. */
export interface Controller {
  /** True while this controller runs the session (synchronous: checked on every stop). */
  readonly owns: (sessionID: SessionId) => boolean
  /** Interrupts what the session is doing, leaves it `stopped`, and returns once it is. */
  readonly stop: (sessionID: SessionId) => Effect.Effect<void>
}

/**
 * One door for "stop this session", whoever runs it: the UI's `sessions.stop` does not need to know
 * whether a session is driven by the built-in runner or by an MCP client. Each runner of sessions
 * registers one {@link Controller} for its lifetime; a stop goes to the controller that owns the
 * session now, and a session no one runs any more is left as it is.
 */
export interface Interface {
  /** Adds a controller for the lifetime of the scope. */
  readonly register: (controller: Controller) => Effect.Effect<void, never, Scope.Scope>
  /**
   * Stops the session through the controller that runs it and returns once it has stopped; a
   * known session that nothing runs is left unchanged (it has already ended).
   */
  readonly stop: (sessionID: SessionId) => Effect.Effect<void, Sessions.NotFoundError>
  /** True when some controller runs the session now. */
  readonly runningUnsafe: (sessionID: SessionId) => boolean
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/session/SessionControl") {}

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const sessions = yield* Sessions.Service
    const controllers = new Set<Controller>()

    const ownerOf = (sessionID: SessionId) => [...controllers].find((controller) => controller.owns(sessionID))

    const register = (controller: Controller) =>
      Effect.acquireRelease(
        Effect.sync(() => void controllers.add(controller)),
        () => Effect.sync(() => void controllers.delete(controller)),
      )

    const stop = Effect.fn("SessionControl.stop")(function* (sessionID: SessionId) {
      const owner = ownerOf(sessionID)
      if (owner) return yield* owner.stop(sessionID)
      yield* sessions.get(sessionID)
    })

    return Service.of({ register, stop, runningUnsafe: (sessionID) => ownerOf(sessionID) !== undefined })
  }),
)

/**
 * The built-in runner's controller. It lives here rather than in Runner's own layer so the runner
 * keeps its dependencies; the composition root builds it next to the runner.
 */
export const runnerLayer = Layer.effectDiscard(
  Effect.gen(function* () {
    const control = yield* Service
    const runner = yield* Runner.Service
    yield* control.register({
      owns: (sessionID) => runner.runningUnsafe().includes(sessionID),
      // The session existed a moment ago; one deleted since has nothing left to stop.
      stop: (sessionID) => runner.stop(sessionID).pipe(Effect.catchTag("Sessions.NotFoundError", () => Effect.void)),
    })
  }),
)
