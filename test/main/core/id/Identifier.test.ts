import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import { IdPrefixes, ProjectId, SessionId } from "@contract/ids"
import { ascending, ascendingBody, newId, timestampOf } from "@core/id/Identifier"

describe("Identifier", () => {
  it("makes 28-character bodies of 16 hex digits and 12 base-62 characters after the prefix", () => {
    for (const prefix of IdPrefixes) {
      const id = ascending(prefix)
      assert.match(id, new RegExp(`^${prefix}_[0-9a-f]{16}[0-9A-Za-z]{12}$`))
      assert.strictEqual(id.length - prefix.length - 1, 28)
    }
  })

  it("sorts ids in creation order, also thousands within one millisecond", () => {
    const ids = Array.from({ length: 10_000 }, () => ascending("ses"))
    const sorted = [...ids].sort()
    assert.deepStrictEqual(sorted, ids)
    assert.strictEqual(new Set(ids).size, ids.length)
  })

  it("keeps ascending when the wall clock steps backwards", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_100 }), { minLength: 2 }),
        (clock) => {
          const bodies = clock.map((now) => ascendingBody(now))
          return bodies.every((body, i) => i === 0 || body.slice(0, 16) > bodies[i - 1]!.slice(0, 16))
        },
      ),
    )
  })

  it("encodes the creation time so it can be read back", () => {
    const before = Date.now()
    const id = newId.project()
    assert.isAtLeast(timestampOf(id), before)
    assert.isAtMost(timestampOf(id), Date.now() + 1)
  })

  it("produces ids that the contract's branded schemas accept, and rejects other prefixes", () => {
    assert.isTrue(Schema.is(ProjectId)(newId.project()))
    assert.isFalse(Schema.is(ProjectId)(newId.session()))
    assert.isTrue(Schema.is(SessionId)(newId.session()))
    assert.isFalse(Schema.is(SessionId)("ses_short"))
  })
})
