import { describe, expect, it } from "vitest"
import { emptyNormalized, replaceAll, shallowEqual, upsertAll } from "@renderer/state/normalized"

type Item = { readonly id: string; readonly n: number }
const keyOf = (item: Item) => item.id

describe("normalized", () => {
  it("copies the collection at most once per batch and keeps unchanged entries by reference", () => {
    const a = { id: "a", n: 1 }
    const start = upsertAll(emptyNormalized<string, Item>(), [a], keyOf)
    const next = upsertAll(
      start,
      [
        { id: "b", n: 1 },
        { id: "c", n: 1 },
        { id: "b", n: 2 },
      ],
      keyOf,
    )
    expect(next.ids).toEqual(["a", "b", "c"])
    expect(next.byId.b).toEqual({ id: "b", n: 2 })
    expect(next.byId.a).toBe(a)
    expect(upsertAll(next, [{ id: "a", n: 1 }], keyOf)).toBe(next)
  })

  it("replaces everything, unless the new list is the same content in the same order", () => {
    const state = replaceAll(
      emptyNormalized<string, Item>(),
      [
        { id: "a", n: 1 },
        { id: "b", n: 2 },
      ],
      keyOf,
    )
    expect(
      replaceAll(
        state,
        [
          { id: "a", n: 1 },
          { id: "b", n: 2 },
        ],
        keyOf,
      ),
    ).toBe(state)
    expect(
      replaceAll(
        state,
        [
          { id: "b", n: 2 },
          { id: "a", n: 1 },
        ],
        keyOf,
      ).ids,
    ).toEqual(["b", "a"])
    expect(replaceAll(state, [], keyOf).ids).toEqual([])
  })

  it("compares own keys with Object.is", () => {
    expect(shallowEqual({ a: 1, b: "x" }, { b: "x", a: 1 })).toBe(true)
    expect(shallowEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false)
    expect(shallowEqual({ a: NaN }, { a: NaN })).toBe(true)
    expect(shallowEqual({ a: {} }, { a: {} })).toBe(false)
  })
})
