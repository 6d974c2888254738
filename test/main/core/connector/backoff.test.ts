import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { defaultBackoff, delayMs } from "@core/connector/backoff"

describe("backoff", () => {
  it("doubles from the initial delay up to the cap without jitter", () => {
    const steady = { ...defaultBackoff, jitter: 0 }
    assert.deepStrictEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 100].map((attempt) => delayMs(attempt, steady)),
      [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000],
    )
  })

  it("stays within the jitter band around the exponential delay and never exceeds the cap", () => {
    fc.assert(
      fc.property(fc.nat(200), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, random) => {
        const delay = delayMs(attempt, defaultBackoff, () => random)
        const base = Math.min(defaultBackoff.maxMs, defaultBackoff.initialMs * 2 ** Math.min(attempt, 64))
        return (
          delay >= Math.floor(base * (1 - defaultBackoff.jitter)) &&
          delay <= Math.min(defaultBackoff.maxMs, Math.ceil(base * (1 + defaultBackoff.jitter)))
        )
      }),
    )
  })

  it("treats a negative or fractional attempt as the first one", () => {
    const steady = { ...defaultBackoff, jitter: 0 }
    assert.strictEqual(delayMs(-3, steady), 500)
    assert.strictEqual(delayMs(1.7, steady), 1000)
  })
})
