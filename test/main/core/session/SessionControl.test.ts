import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import type { SessionId } from "@contract/ids"
import { Locations } from "@core/location/Locations"
import { Projects } from "@core/session/Projects"
import { Runner } from "@core/session/Runner"
import { SessionControl } from "@core/session/SessionControl"
import { Sessions } from "@core/session/Sessions"
import { coreTestLayer } from "../../../support/layers"
import { makeTempDir } from "../../../support/temp"
import { nextAsk, runnerTestLayer, script, watchEvents } from "./Runner.support"

const layer = () => SessionControl.layer.pipe(Layer.provideMerge(coreTestLayer({ dataDir: makeTempDir() })))

const makeSession = Effect.gen(function* () {
  const projects = yield* Projects.Service
  const sessions = yield* Sessions.Service
  const project = yield* projects.ensure(makeTempDir())
  return yield* sessions.create({ projectId: project.id, agent: "build", title: "t", source: "mcp:test" })
})

/** A controller that owns the given sessions and records what it was asked to stop. */
const recording = (owned: ReadonlyArray<SessionId>) => {
  const stopped: Array<SessionId> = []
  return {
    stopped,
    controller: {
      owns: (sessionID: SessionId) => owned.includes(sessionID),
      stop: (sessionID: SessionId) => Effect.sync(() => void stopped.push(sessionID)),
    } satisfies SessionControl.Controller,
  }
}

describe("SessionControl", () => {
  it.effect("stops a session through the controller that runs it, and only that one", () =>
    Effect.gen(function* () {
      const control = yield* SessionControl.Service
      const a = yield* makeSession
      const b = yield* makeSession
      const runnerLike = recording([a.id])
      const mcpLike = recording([b.id])
      yield* control.register(runnerLike.controller)
      yield* control.register(mcpLike.controller)
      yield* control.stop(b.id)
      assert.deepStrictEqual(mcpLike.stopped, [b.id])
      assert.deepStrictEqual(runnerLike.stopped, [])
      assert.isTrue(control.runningUnsafe(a.id))
    }).pipe(Effect.scoped, Effect.provide(layer())),
  )

  it.effect("leaves a known session that nothing runs as it is, and fails for an unknown one", () =>
    Effect.gen(function* () {
      const control = yield* SessionControl.Service
      const session = yield* makeSession
      yield* control.stop(session.id)
      const sessions = yield* Sessions.Service
      assert.strictEqual((yield* sessions.get(session.id)).status, "idle")
      const error = yield* Effect.flip(control.stop("ses_unknown" as SessionId))
      assert.instanceOf(error, Sessions.NotFoundError)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("forgets a controller when its scope closes", () =>
    Effect.gen(function* () {
      const control = yield* SessionControl.Service
      const session = yield* makeSession
      const owner = recording([session.id])
      const scope = yield* Scope.make()
      yield* Scope.provide(scope)(control.register(owner.controller))
      assert.isTrue(control.runningUnsafe(session.id))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(control.runningUnsafe(session.id))
      yield* control.stop(session.id)
      assert.deepStrictEqual(owner.stopped, [])
    }).pipe(Effect.provide(layer())),
  )

  it.live("stops a runner session through the runner's controller: its ask is withdrawn, its status stopped", () =>
    Effect.gen(function* () {
      const control = yield* SessionControl.Service
      const runner = yield* Runner.Service
      const locations = yield* Locations.Service
      const events = yield* watchEvents
      const session = yield* runner.start({
        directory: makeTempDir(),
        provider: script({ toolCalls: [{ name: "bash", input: { command: "echo never" } }] }),
      })
      yield* nextAsk(events, session.id)
      assert.isTrue(control.runningUnsafe(session.id))
      yield* control.stop(session.id)
      assert.strictEqual((yield* runner.wait(session.id)).status, "stopped")
      assert.lengthOf(locations.pendingUnsafe(), 0)
      assert.isFalse(control.runningUnsafe(session.id))
    }).pipe(
      Effect.scoped,
      Effect.provide(
        SessionControl.runnerLayer.pipe(
          Layer.provideMerge(SessionControl.layer),
          Layer.provideMerge(
            runnerTestLayer({
              dataDir: makeTempDir(),
              config: { agents: { build: [{ action: "bash", resource: "*", effect: "ask" }] } },
            }),
          ),
        ),
      ),
    ),
  )
})
