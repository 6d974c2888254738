import Database from "better-sqlite3"
import { assert, describe, it } from "@effect/vitest"
import { migrate } from "@core/store/Store"
import { migrations } from "@core/store/migrations"

const upTo = (version: number) => migrations.filter((m) => m.version <= version)
const plan = (db: Database.Database, query: string, ...params: unknown[]) =>
  JSON.stringify(db.prepare(`EXPLAIN QUERY PLAN ${query}`).all(...params))

describe("Store/migration 0030", () => {
  it("adds STRICT saved-approval and decision-log tables over existing projects and sessions", () => {
    const db = new Database(":memory:")
    db.pragma("foreign_keys = ON")
    migrate(db, ":memory:", upTo(20))
    db.prepare("INSERT INTO project VALUES ('prj_1', '/repo', 'repo', 1, 1)").run()
    db.prepare("INSERT INTO project VALUES ('prj_2', '/other', 'other', 1, 1)").run()
    db.prepare("INSERT INTO session VALUES ('ses_1', 'prj_1', 'build', 't', 'runner', 'idle', 1, 1)").run()
    migrate(db, ":memory:", upTo(30))
    assert.strictEqual(db.pragma("user_version", { simple: true }), 30)
    assert.strictEqual(db.prepare("SELECT count(*) FROM session").pluck().get(), 1)
    for (const table of ["permission", "permission_request"]) {
      const ddl = db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").pluck().get(table) as string
      assert.match(ddl, /\)\s*STRICT$/)
    }

    const ask = db.prepare(
      `INSERT INTO permission_request (id, session_id, project_id, action, resources, status, decided_by, created_at, decided_at)
       VALUES (?, 'ses_1', ?, 'bash', '["ls"]', ?, ?, 1, ?)`,
    )
    ask.run("per_1", "prj_1", "pending", null, null)
    ask.run("per_2", "prj_1", "always", "person", 2)
    assert.throws(() => ask.run("per_3", "prj_1", "maybe", "person", 2), /CHECK/)
    assert.throws(() => ask.run("per_4", "prj_1", "once", null, null), /CHECK/)
    assert.throws(() => ask.run("per_5", "prj_1", "pending", "person", 2), /CHECK/)
    assert.throws(() => ask.run("per_6", "prj_x", "pending", null, null), /FOREIGN KEY/)

    const save = db.prepare(
      `INSERT INTO permission (id, project_id, action, resource, request_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, 1)`,
    )
    save.run("psv_1", "prj_1", "bash", "ls", "per_2")
    save.run("psv_2", "prj_2", "bash", "ls", null)
    save.run("psv_3", "prj_1", "bash", "ls *", null)
    assert.throws(() => save.run("psv_4", "prj_1", "bash", "ls", null), /UNIQUE/)
    assert.throws(() => save.run("psv_5", "prj_1", "bash", "x", "per_x"), /FOREIGN KEY/)
    assert.deepStrictEqual(db.prepare("SELECT hit_count, last_used_at FROM permission WHERE id = 'psv_1'").get(), {
      hit_count: 0,
      last_used_at: null,
    })

    // Pruning a logged ask keeps the approval it saved, unlinked from it.
    db.prepare("DELETE FROM permission_request WHERE id = 'per_2'").run()
    assert.isNull(db.prepare("SELECT request_id FROM permission WHERE id = 'psv_1'").pluck().get())

    assert.include(
      plan(db, "SELECT * FROM permission WHERE project_id = ? ORDER BY id", "prj_1"),
      "permission_project_action_resource_idx",
    )
    assert.include(
      plan(db, "SELECT id FROM permission_request WHERE status = 'pending'"),
      "permission_request_pending_idx",
    )
    assert.include(
      plan(db, "SELECT * FROM permission_request WHERE session_id = ? ORDER BY created_at", "ses_1"),
      "permission_request_session_idx",
    )

    db.prepare("DELETE FROM project WHERE id = 'prj_1'").run()
    assert.strictEqual(db.prepare("SELECT count(*) FROM permission").pluck().get(), 1)
    assert.strictEqual(db.prepare("SELECT count(*) FROM permission_request").pluck().get(), 0)
    db.close()
  })
})
