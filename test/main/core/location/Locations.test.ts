import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import type { SessionId } from "@contract/ids"
import { Locations } from "@core/location/Locations"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import { Tool } from "@core/tool/Tool"
import { Tools } from "@core/tool/Tools"
import { newId } from "@core/id/Identifier"
import { coreTestLayer } from "../../../support/layers"
import { makeTempDir } from "../../../support/temp"

const echo = Tool.make({
  description: "echo",
  input: Schema.Struct({ text: Schema.String }),
  output: Schema.String,
  execute: (input) => Effect.succeed(input.text),
})

// A plugin like the built-in tools: it registers through Tools for as long as the Location lives.
const plugins = Layer.effectDiscard(
  Effect.gen(function* () {
    const tools = yield* Tools.Service
    yield* tools.register({ echo })
  }),
)

const askEverything = { agents: { build: [{ action: "*", resource: "*", effect: "ask" as const }] } }

const setup = () => {
  const root = makeTempDir()
  for (const name of ["a", "b"]) mkdirSync(join(root, name))
  const layer = Locations.layer({ plugins, idleTimeToLive: "1 minute" }).pipe(
    Layer.provideMerge(coreTestLayer({ dataDir: makeTempDir(), config: askEverything })),
  )
  return { root, layer }
}

const context = (sessionID: SessionId) => ({
  sessionID,
  action: "bash",
  resources: ["ls"],
})

describe("Locations", () => {
  it.effect("builds one Location per project, shared by every user, with its plugins registered", () => {
    const { root, layer } = setup()
    return Effect.scoped(
      Effect.gen(function* () {
        const projects = yield* Projects.Service
        const locations = yield* Locations.Service
        const project = yield* projects.ensure(join(root, "a"))
        const first = yield* locations.acquire(project.id)
        const second = yield* locations.acquire(project.id)
        assert.strictEqual(first, second)
        assert.deepStrictEqual(
          locations.liveUnsafe().map((handle) => handle.project.id),
          [project.id],
        )
        const turn = yield* first.registry.materialize([])
        assert.deepStrictEqual(
          turn.definitions.map((definition) => definition.name),
          ["echo"],
        )
      }),
    ).pipe(Effect.provide(layer))
  })

  it.effect("fails for a project that does not exist", () => {
    const { layer } = setup()
    return Effect.scoped(
      Effect.gen(function* () {
        const locations = yield* Locations.Service
        const error = yield* Effect.flip(locations.acquire(newId.project()))
        assert.instanceOf(error, Locations.UnknownProjectError)
      }),
    ).pipe(Effect.provide(layer))
  })

  it.effect("lists the pending asks of every project and routes each answer to the Location that holds it", () => {
    const { root, layer } = setup()
    return Effect.scoped(
      Effect.gen(function* () {
        const projects = yield* Projects.Service
        const sessions = yield* Sessions.Service
        const locations = yield* Locations.Service
        const handles = yield* Effect.forEach(["a", "b"], (name) =>
          Effect.gen(function* () {
            const project = yield* projects.ensure(join(root, name))
            const session = yield* sessions.create({
              projectId: project.id,
              agent: "build",
              title: name,
              source: "runner",
            })
            const handle = yield* locations.acquire(project.id)
            return { handle, session }
          }),
        )
        const waiters = yield* Effect.forEach(handles, ({ handle, session }) =>
          Effect.forkChild(handle.permission.assert(context(session.id))),
        )
        yield* Effect.yieldNow
        while (locations.pendingUnsafe().length < 2) yield* Effect.yieldNow
        const pending = locations.pendingUnsafe()
        assert.deepStrictEqual(
          pending.map((request) => request.sessionID),
          handles.map(({ session }) => session.id),
        )
        yield* locations.reply({ requestID: pending[1]!.id, reply: "once" })
        assert.isTrue(Exit.isSuccess(yield* Fiber.await(waiters[1]!)))
        assert.deepStrictEqual(
          locations.pendingUnsafe().map((request) => request.id),
          [pending[0]!.id],
        )
        const missing = yield* Effect.flip(locations.reply({ requestID: pending[1]!.id, reply: "once" }))
        assert.instanceOf(missing, PermissionV2.NotFoundError)
      }),
    ).pipe(Effect.provide(layer))
  })

  it.effect("disposes an unused Location after its idle time, declining what it still had pending", () => {
    const { root, layer } = setup()
    return Effect.gen(function* () {
      const projects = yield* Projects.Service
      const sessions = yield* Sessions.Service
      const locations = yield* Locations.Service
      const project = yield* projects.ensure(join(root, "a"))
      const session = yield* sessions.create({ projectId: project.id, agent: "build", title: "t", source: "runner" })
      const waiter = yield* Effect.forkChild(
        Effect.scoped(
          Effect.gen(function* () {
            const handle = yield* locations.acquire(project.id)
            // A fiber that outlives the caller's hold on the Location, waiting on its ask.
            return yield* Effect.forkDetach(handle.permission.assert(context(session.id)))
          }),
        ),
      )
      const asked = yield* Fiber.join(waiter)
      while (locations.pendingUnsafe().length < 1) yield* Effect.yieldNow
      assert.strictEqual(locations.liveUnsafe().length, 1)
      yield* TestClock.adjust("2 minutes")
      const exit = yield* Fiber.await(asked)
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(locations.liveUnsafe().length, 0)
    }).pipe(Effect.provide(layer))
  })
})
