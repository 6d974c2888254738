import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime, Queue, Schema } from "effect"
import { EventBatchJson } from "@contract/wire"
import { EventBus } from "@core/events/EventBus"
import { Projects } from "@core/session/Projects"
import { EventPush } from "@main/electron/EventPush"
import { coreTestLayer } from "../../support/layers"
import { makeTempDir } from "../../support/temp"

const decodeBatch = Schema.decodeUnknownSync(EventBatchJson)
const testLayer = () => EventPush.layer.pipe(Layer.provideMerge(coreTestLayer({ dataDir: makeTempDir() })))

describe("EventPush", () => {
  it.effect("pushes, encoded, every event published after attach and none from before", () =>
    Effect.gen(function* () {
      const projects = yield* Projects.Service
      const push = yield* EventPush.Service
      yield* projects.ensure(makeTempDir())
      const sent = yield* Queue.unbounded<unknown>()
      yield* push.attach((batch) => Queue.offerUnsafe(sent, batch))
      const later = yield* projects.ensure(makeTempDir())
      const batch = decodeBatch(yield* Queue.take(sent))
      assert.strictEqual(batch.events.length, 1)
      assert.strictEqual(batch.events[0]!.seq, 2)
      assert.deepStrictEqual(batch.events[0]!.event, { _tag: "project.created", project: later })
    }).pipe(Effect.provide(testLayer())),
  )

  it.effect("delivers events in order with no gap across batches", () =>
    Effect.gen(function* () {
      const projects = yield* Projects.Service
      const push = yield* EventPush.Service
      const sent = yield* Queue.unbounded<unknown>()
      yield* push.attach((batch) => Queue.offerUnsafe(sent, batch))
      for (let i = 0; i < 5; i++) yield* projects.ensure(makeTempDir())
      const seqs: Array<number> = []
      while (seqs.length < 5) seqs.push(...decodeBatch(yield* Queue.take(sent)).events.map((e) => e.seq))
      assert.deepStrictEqual(seqs, [1, 2, 3, 4, 5])
    }).pipe(Effect.provide(testLayer())),
  )

  it.effect("sends nothing more to a window once it is detached", () =>
    Effect.gen(function* () {
      const projects = yield* Projects.Service
      const push = yield* EventPush.Service
      const closed: Array<unknown> = []
      const detach = yield* push.attach((batch) => closed.push(batch))
      detach()
      const open = yield* Queue.unbounded<unknown>()
      yield* push.attach((batch) => Queue.offerUnsafe(open, batch))
      yield* projects.ensure(makeTempDir())
      yield* Queue.take(open)
      assert.deepStrictEqual(closed, [])
    }).pipe(Effect.provide(testLayer())),
  )

  it("attaches synchronously, as the composition root does, and stops every feed on dispose", async () => {
    const runtime = ManagedRuntime.make(testLayer())
    await runtime.runPromise(Effect.void)
    const sent: Array<unknown> = []
    const bus = runtime.runSync(
      Effect.gen(function* () {
        const push = yield* EventPush.Service
        yield* push.attach((batch) => sent.push(batch))
        return yield* EventBus.Service
      }),
    )
    await runtime.dispose()
    bus.publishUnsafe({
      _tag: "project.created",
      project: { id: "prj_x" as never, directory: "/x", name: "x", createdAt: 0 } as never,
    })
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepStrictEqual(sent, [])
  })
})
