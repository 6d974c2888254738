// Normalized collections (`ids` + `byId`) with transitions that keep references stable: a change
// that changes nothing returns the very same object, so zustand notifies nobody and selectors
// that return `ids` or one entry keep their identity (SG-17, SG-18).

export interface Normalized<K extends string, V> {
  /** Keys in display order. */
  readonly ids: ReadonlyArray<K>
  readonly byId: Readonly<Record<K, V>>
}

export const emptyNormalized = <K extends string, V>(): Normalized<K, V> => ({
  ids: [],
  byId: {} as Record<K, V>,
})

/** Own enumerable keys with identical values (`Object.is`). */
export function shallowEqual(a: object, b: object): boolean {
  if (a === b) return true
  const aKeys = Object.keys(a)
  if (aKeys.length !== Object.keys(b).length) return false
  const bRecord = b as Record<string, unknown>
  const aRecord = a as Record<string, unknown>
  return aKeys.every((key) => Object.hasOwn(b, key) && Object.is(aRecord[key], bRecord[key]))
}

/**
 * Inserts or replaces values; new keys are appended in the given order. Copies `ids`/`byId` at most
 * once per call however many values change, and returns `state` itself when none does.
 */
export function upsertAll<S extends Normalized<K, V>, K extends string, V extends object>(
  state: S,
  values: ReadonlyArray<V>,
  keyOf: (value: V) => K,
): S {
  let ids: Array<K> | undefined
  let byId: Record<K, V> | undefined
  for (const value of values) {
    const key = keyOf(value)
    const current = (byId ?? state.byId)[key]
    if (current !== undefined && shallowEqual(current, value)) continue
    byId ??= { ...state.byId }
    if (current === undefined) (ids ??= [...state.ids]).push(key)
    byId[key] = value
  }
  if (!byId) return state
  return { ...state, ids: ids ?? state.ids, byId }
}

/** Replaces the whole collection with `values` (a snapshot), unless it holds exactly that already. */
export function replaceAll<S extends Normalized<K, V>, K extends string, V extends object>(
  state: S,
  values: ReadonlyArray<V>,
  keyOf: (value: V) => K,
): S {
  const same =
    values.length === state.ids.length &&
    values.every((value, index) => {
      const key = keyOf(value)
      const current = state.byId[key]
      return state.ids[index] === key && current !== undefined && shallowEqual(current, value)
    })
  if (same) return state
  const byId = {} as Record<K, V>
  for (const value of values) byId[keyOf(value)] = value
  return { ...state, ids: values.map(keyOf), byId }
}
