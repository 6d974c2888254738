import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import Database from "better-sqlite3"
import { sql } from "@core/store/sql"

describe("sql", () => {
  it("binds every interpolated value as a parameter instead of splicing text", () => {
    const name = "x'); DROP TABLE project; --"
    const query = sql`SELECT * FROM project WHERE name = ${name} AND id = ${7}`
    assert.strictEqual(query.text, "SELECT * FROM project WHERE name = ? AND id = ?")
    assert.deepStrictEqual(query.values, [name, 7])
  })

  it("nests fragments and joins lists, keeping their parameters in order", () => {
    const where = sql`status IN (${sql.join(["a", "b"])})`
    const query = sql`SELECT 1 WHERE ${where} AND x = ${true} AND y = ${undefined}`
    assert.strictEqual(query.text, "SELECT 1 WHERE status IN (?, ?) AND x = ? AND y = ?")
    assert.deepStrictEqual(query.values, ["a", "b", 1, null])
  })

  it("refuses values it cannot bind and empty lists", () => {
    assert.throws(() => sql`SELECT ${{ a: 1 }}`, /cannot bind a value of type object/)
    assert.throws(() => sql.join([]), /empty list/)
  })

  it("round-trips any string through SQLite unchanged", () => {
    const db = new Database(":memory:")
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (value) => {
        const query = sql`SELECT ${value} AS v`
        return (
          db
            .prepare(query.text)
            .pluck()
            .get(...query.values) === value
        )
      }),
    )
    db.close()
  })
})
