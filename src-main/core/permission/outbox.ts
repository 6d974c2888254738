import type { AppEvent } from "@contract/events"
import type { EventBus } from "../events/EventBus"
import type { Store } from "../store/Store"

/** Events collected while a transaction runs, published only once it has committed. */
export type Outbox = AppEvent[]

/**
 * Runs `f` in one `BEGIN IMMEDIATE` transaction and publishes what it put in the outbox after the
 * commit, all in the caller's synchronous block (EventBus consistency rule). A rolled-back change
 * therefore never announces itself. In-memory changes belong in `after`, which also runs only
 * after the commit, just before the events go out.
 */
export function commit<A>(
  store: Store.Interface,
  bus: EventBus.Interface,
  f: (outbox: Outbox) => A,
  after?: (result: A) => void,
): A {
  const outbox: Outbox = []
  const result = store.transaction(() => f(outbox))
  after?.(result)
  for (const event of outbox) bus.publishUnsafe(event)
  return result
}
