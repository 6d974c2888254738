import Database from "better-sqlite3"
import { assert, describe, it } from "@effect/vitest"
import { migrate } from "@core/store/Store"
import { migrations } from "@core/store/migrations"

const upTo = (version: number) => migrations.filter((m) => m.version <= version)
const plan = (db: Database.Database, query: string, ...values: unknown[]) =>
  JSON.stringify(db.prepare(`EXPLAIN QUERY PLAN ${query}`).all(...values))

describe("Store/migration 0020", () => {
  it("adds a STRICT tool_output table and indexes while keeping projects and sessions", () => {
    const db = new Database(":memory:")
    db.pragma("foreign_keys = ON")
    migrate(db, ":memory:", upTo(10))
    db.prepare("INSERT INTO project VALUES ('prj_1', '/repo', 'repo', 1, 2)").run()
    db.prepare("INSERT INTO session VALUES ('ses_1', 'prj_1', 'build', 'fix it', 'runner', 'idle', 3, 4)").run()

    migrate(db, ":memory:", upTo(20))
    assert.strictEqual(db.pragma("user_version", { simple: true }), 20)
    assert.deepStrictEqual(db.prepare("SELECT * FROM project").all(), [
      { id: "prj_1", directory: "/repo", name: "repo", created_at: 1, updated_at: 2 },
    ])
    assert.strictEqual(db.prepare("SELECT title FROM session WHERE id = 'ses_1'").pluck().get(), "fix it")

    const ddl = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'tool_output'").pluck().get() as string
    assert.match(ddl, /\)\s*STRICT$/)
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tool_output' AND sql IS NOT NULL")
      .pluck()
      .all()
    assert.sameMembers(indexes as string[], [
      "tool_output_live_idx",
      "tool_output_session_idx",
      "tool_output_expiry_idx",
    ])

    const insert = db.prepare("INSERT INTO tool_output VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    insert.run("tool_1", "/data/tool-output/tool_1", 60_000, 3000, "ses_1", "call-1", "bash", 10, 20, null)
    insert.run("tool_2", "/data/tool-output/tool_2", 10, 1, null, null, null, 11, 21, 15)
    assert.deepStrictEqual(db.prepare("SELECT * FROM tool_output WHERE id = 'tool_1'").get(), {
      id: "tool_1",
      path: "/data/tool-output/tool_1",
      bytes: 60_000,
      lines: 3000,
      session_id: "ses_1",
      tool_call_id: "call-1",
      tool_name: "bash",
      created_at: 10,
      expires_at: 20,
      deleted_at: null,
    })
    assert.throws(() => insert.run("tool_3", "/data/tool-output/tool_1", 1, 1, null, null, null, 1, 2, null), /UNIQUE/)
    assert.throws(() => insert.run("tool_4", "/p4", "many", 1, null, null, null, 1, 2, null), /cannot store TEXT/)
    assert.throws(() => insert.run("tool_5", "/p5", 1, 0, null, null, null, 1, 2, null), /CHECK/)

    assert.include(
      plan(db, "SELECT * FROM tool_output WHERE deleted_at IS NULL ORDER BY created_at DESC"),
      "tool_output_live_idx",
    )
    assert.include(
      plan(
        db,
        "SELECT * FROM tool_output WHERE deleted_at IS NULL AND session_id = ? ORDER BY created_at DESC",
        "ses_1",
      ),
      "tool_output_session_idx",
    )
    assert.include(
      plan(db, "SELECT id, path FROM tool_output WHERE deleted_at IS NULL AND expires_at <= ?", 100),
      "tool_output_expiry_idx",
    )
    db.close()
  })
})
