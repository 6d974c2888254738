import { Context, Effect, Layer, Queue, type Scope } from "effect"
import type { AppEvent, Envelope } from "@contract/events"

export * as EventBus from "./EventBus"

/** A live feed of envelopes that starts right after the snapshot it was taken with. */
export interface Subscription<S> {
  readonly snapshot: S
  /** The sequence number the snapshot reflects: the feed starts at `seq + 1`. */
  readonly seq: number
  /** Waits for at least one envelope and returns every queued one, oldest first. */
  readonly takeBatch: Effect.Effect<ReadonlyArray<Envelope>>
}

/**
 * One ordered stream of domain events. Every state change in the core is published exactly once,
 * stamped with a strictly increasing sequence number.
 *
 * Consistency rule for publishers: change the state that snapshots read (maps, database rows) and
 * call `publishUnsafe` in the same synchronous block (one `Effect.sync`). Then a snapshot can never
 * see a change whose event is after its `seq`, nor miss one that is before it.
 */
export interface Interface {
  /** The sequence number of the latest event (0 before the first). */
  readonly sequence: () => number
  /** Publishes one event and returns its sequence number. */
  readonly publish: (event: AppEvent) => Effect.Effect<number>
  /** The same, for use inside an `Effect.sync` block that also changes state. */
  readonly publishUnsafe: (event: AppEvent) => number
  /**
   * Runs `snapshot` and starts a feed of every later event in one synchronous step, so the feed has
   * no gap and no duplicate relative to the snapshot. The feed ends when the scope closes.
   */
  readonly subscribe: <S>(snapshot: () => S) => Effect.Effect<Subscription<S>, never, Scope.Scope>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/events/EventBus") {}

export const make = Effect.sync(() => {
  let seq = 0
  const subscribers = new Set<Queue.Queue<Envelope>>()

  const publishUnsafe = (event: AppEvent) => {
    seq += 1
    const envelope: Envelope = { seq, at: Date.now(), event }
    for (const queue of subscribers) Queue.offerUnsafe(queue, envelope)
    return seq
  }

  const subscribe = <S>(snapshot: () => S) =>
    Effect.gen(function* () {
      const queue = yield* Queue.unbounded<Envelope>()
      const taken = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const value = snapshot()
          subscribers.add(queue)
          return { snapshot: value, seq }
        }),
        () => Effect.sync(() => subscribers.delete(queue)).pipe(Effect.andThen(Queue.shutdown(queue))),
      )
      return { ...taken, takeBatch: Queue.takeAll(queue) } satisfies Subscription<S>
    })

  return Service.of({
    sequence: () => seq,
    publish: (event) => Effect.sync(() => publishUnsafe(event)),
    publishUnsafe,
    subscribe,
  })
})

export const layer = Layer.effect(Service, make)
