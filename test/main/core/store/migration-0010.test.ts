import Database from "better-sqlite3"
import { assert, describe, it } from "@effect/vitest"
import { migrate } from "@core/store/Store"
import { migrations } from "@core/store/migrations"

const upTo = (version: number) => migrations.filter((m) => m.version <= version)

describe("Store/migration 0010", () => {
  it("creates STRICT project and session tables with a cascading project reference", () => {
    const db = new Database(":memory:")
    db.pragma("foreign_keys = ON")
    migrate(db, ":memory:", upTo(10))
    assert.strictEqual(db.pragma("user_version", { simple: true }), 10)
    for (const table of ["project", "session"]) {
      const ddl = db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").pluck().get(table) as string
      assert.match(ddl, /\)\s*STRICT$/)
    }
    db.prepare("INSERT INTO project VALUES ('prj_1', '/repo', 'repo', 1, 1)").run()
    db.prepare("INSERT INTO session VALUES ('ses_1', 'prj_1', 'build', 't', 'runner', 'idle', 1, 1)").run()
    assert.throws(
      () => db.prepare("INSERT INTO session VALUES ('ses_2', 'prj_x', 'build', 't', 'runner', 'idle', 1, 1)").run(),
      /FOREIGN KEY/,
    )
    assert.throws(
      () => db.prepare("INSERT INTO session VALUES ('ses_3', 'prj_1', 'build', 't', 'runner', 'asleep', 1, 1)").run(),
      /CHECK/,
    )
    assert.throws(() => db.prepare("INSERT INTO project VALUES ('prj_2', '/repo', 'again', 1, 1)").run(), /UNIQUE/)
    db.prepare("DELETE FROM project WHERE id = 'prj_1'").run()
    assert.strictEqual(db.prepare("SELECT count(*) FROM session").pluck().get(), 0)
    const plan = db
      .prepare("EXPLAIN QUERY PLAN SELECT * FROM session WHERE project_id = ? ORDER BY updated_at")
      .all("prj_1")
    assert.include(JSON.stringify(plan), "session_project_idx")
    db.close()
  })
})
