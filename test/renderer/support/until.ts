/** A store as zustand exposes it outside React. */
interface Subscribable<S> {
  readonly getState: () => S
  readonly subscribe: (listener: (state: S) => void) => () => void
}

/** Resolves once the store's state satisfies `predicate` (at once if it already does). */
export function until<S>(store: Subscribable<S>, predicate: (state: S) => boolean): Promise<S> {
  if (predicate(store.getState())) return Promise.resolve(store.getState())
  return new Promise((resolve) => {
    const stop = store.subscribe((state) => {
      if (!predicate(state)) return
      stop()
      resolve(state)
    })
  })
}

/** Lets queued microtasks (promise callbacks, the event flush) run. */
export const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0))
