import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Random } from "effect"
import fc from "fast-check"
import type { AppEvent, Envelope } from "@contract/events"
import { EventBus } from "@core/events/EventBus"
import { newId } from "@core/id/Identifier"

const event = (n: number): AppEvent => ({
  _tag: "project.created",
  project: { id: newId.project(), directory: `/p/${n}`, name: String(n), createdAt: n },
})

/** Drains envelopes until the expected count arrived. */
const collect = (takeBatch: Effect.Effect<ReadonlyArray<Envelope>>, count: number) =>
  Effect.gen(function* () {
    const seen: Envelope[] = []
    while (seen.length < count) seen.push(...(yield* takeBatch))
    return seen
  })

describe("EventBus", () => {
  it.effect("stamps events with strictly increasing sequence numbers starting at 1", () =>
    Effect.gen(function* () {
      const bus = yield* EventBus.Service
      assert.strictEqual(bus.sequence(), 0)
      assert.strictEqual(yield* bus.publish(event(1)), 1)
      assert.strictEqual(bus.publishUnsafe(event(2)), 2)
      assert.strictEqual(bus.sequence(), 2)
    }).pipe(Effect.provide(EventBus.layer)),
  )

  it.effect("delivers exactly the events after a subscriber's snapshot, in order", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const bus = yield* EventBus.Service
        const state: number[] = []
        const apply = (n: number) => {
          state.push(n)
          bus.publishUnsafe(event(n))
        }
        apply(1)
        apply(2)
        const sub = yield* bus.subscribe(() => [...state])
        apply(3)
        apply(4)
        assert.deepStrictEqual(sub.snapshot, [1, 2])
        assert.strictEqual(sub.seq, 2)
        const envelopes = yield* collect(sub.takeBatch, 2)
        assert.deepStrictEqual(
          envelopes.map((e) => e.seq),
          [3, 4],
        )
      }),
    ).pipe(Effect.provide(EventBus.layer)),
  )

  it("gives every subscriber a gap-free, duplicate-free feed under concurrent publishing", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 1000 }),
        (publishers, perPublisher, seed) =>
          Effect.runPromise(
            Effect.scoped(
              Effect.gen(function* () {
                const bus = yield* EventBus.Service
                const applied: number[] = []
                // State change and publication happen in one synchronous step (the bus's rule).
                const publisher = (p: number) =>
                  Effect.forEach(
                    Array.from({ length: perPublisher }, (_, i) => p * 1000 + i),
                    (n) =>
                      Effect.gen(function* () {
                        if ((yield* Random.nextIntBetween(0, 3)) === 0) yield* Effect.yieldNow
                        yield* Effect.sync(() => {
                          applied.push(n)
                          bus.publishUnsafe(event(n))
                        })
                      }),
                    { discard: true },
                  )
                const running = yield* Effect.forkChild(
                  Effect.all(
                    Array.from({ length: publishers }, (_, p) => publisher(p)),
                    { concurrency: "unbounded" },
                  ),
                )
                yield* Effect.yieldNow
                const sub = yield* bus.subscribe(() => applied.length)
                yield* Fiber.join(running)
                const total = publishers * perPublisher
                const feed = yield* collect(sub.takeBatch, total - sub.snapshot)
                const seqs = feed.map((e) => e.seq)
                const expected = Array.from({ length: total - sub.seq }, (_, i) => sub.seq + 1 + i)
                assert.deepStrictEqual(seqs, expected)
                assert.strictEqual(sub.snapshot, sub.seq)
              }),
            ).pipe(Effect.provide(EventBus.layer), Random.withSeed(seed)),
          ),
      ),
      { numRuns: 50 },
    )
  })

  it.effect("stops feeding a subscriber once its scope closes", () =>
    Effect.gen(function* () {
      const bus = yield* EventBus.Service
      const sub = yield* Effect.scoped(bus.subscribe(() => null))
      bus.publishUnsafe(event(1))
      const result = yield* Effect.exit(Effect.timeout(sub.takeBatch, "50 millis"))
      assert.strictEqual(result._tag, "Failure")
    }).pipe(Effect.provide(EventBus.layer)),
  )
})
