import Database from "better-sqlite3"
import { assert, describe, it } from "@effect/vitest"
import { migrate } from "@core/store/Store"
import { migrations } from "@core/store/migrations"

const upTo = (version: number) => migrations.filter((m) => m.version <= version)
const plan = (db: Database.Database, query: string, ...params: unknown[]) =>
  JSON.stringify(db.prepare(`EXPLAIN QUERY PLAN ${query}`).all(...params))

describe("Store/migration 0060", () => {
  it("adds STRICT connector tables and the ask's connector, keeping the decision log as it was", () => {
    const db = new Database(":memory:")
    db.pragma("foreign_keys = ON")
    migrate(db, ":memory:", upTo(50))
    db.prepare("INSERT INTO project VALUES ('prj_1', '/repo', 'repo', 1, 1)").run()
    db.prepare("INSERT INTO session VALUES ('ses_1', 'prj_1', 'build', 't', 'runner', 'idle', 1, 1, NULL, NULL)").run()
    db.prepare(
      `INSERT INTO permission_request (id, session_id, project_id, action, resources, status, decided_by, created_at, decided_at)
       VALUES ('per_1', 'ses_1', 'prj_1', 'bash', '["ls"]', 'once', 'person', 1, 2),
              ('per_2', 'ses_1', 'prj_1', 'bash', '["pwd"]', 'pending', NULL, 3, NULL)`,
    ).run()

    migrate(db, ":memory:", upTo(60))
    assert.strictEqual(db.pragma("user_version", { simple: true }), 60)
    assert.deepStrictEqual(
      db
        .prepare("SELECT id, status, connector, remote_id, answered_remotely FROM permission_request ORDER BY id")
        .all(),
      [
        { id: "per_1", status: "once", connector: null, remote_id: null, answered_remotely: 0 },
        { id: "per_2", status: "pending", connector: null, remote_id: null, answered_remotely: 0 },
      ],
    )
    assert.throws(
      () => db.prepare("UPDATE permission_request SET answered_remotely = 2 WHERE id = 'per_1'").run(),
      /CHECK/,
    )
    db.prepare(
      `INSERT INTO permission_request (id, session_id, project_id, action, resources, status, created_at, connector,
         remote_id) VALUES ('per_3', 'ses_1', 'prj_1', 'bash', '["ls"]', 'pending', 4, 'opencode:laptop', 'per_remote')`,
    ).run()
    assert.include(
      plan(db, "SELECT id FROM permission_request WHERE connector = ? AND remote_id = ?", "opencode:laptop", "x"),
      "permission_request_connector_idx",
    )

    for (const table of ["connector", "connector_session"]) {
      const ddl = db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").pluck().get(table) as string
      assert.match(ddl, /\)\s*STRICT$/)
    }
    const connector = db.prepare("INSERT INTO connector VALUES (?, ?, ?, ?, ?, ?)")
    connector.run("laptop", "opencode", "http://127.0.0.1:4096", "opencode", "secret", 5)
    assert.throws(() => connector.run("laptop", "opencode", "http://127.0.0.1:1", null, null, 6), /UNIQUE|PRIMARY/)
    assert.throws(() => connector.run("other", "claude", "http://127.0.0.1:1", null, null, 6), /CHECK/)
    assert.throws(() => connector.run("other", "opencode", "http://x", null, null, "now"), /cannot store TEXT/)

    const mirror = db.prepare("INSERT INTO connector_session VALUES (?, ?, ?, ?)")
    mirror.run("laptop", "ses_remote1", "ses_1", "/repo")
    assert.throws(() => mirror.run("laptop", "ses_remote1", "ses_1", "/repo"), /UNIQUE|PRIMARY/)
    assert.throws(() => mirror.run("laptop", "ses_remote2", "ses_x", "/repo"), /FOREIGN KEY/)
    assert.include(
      plan(db, "SELECT session_id FROM connector_session WHERE connector = ? AND remote_id = ?", "laptop", "x"),
      "USING INDEX sqlite_autoindex_connector_session_2 (connector=? AND remote_id=?)",
    )

    db.prepare("DELETE FROM session WHERE id = 'ses_1'").run()
    assert.strictEqual(db.prepare("SELECT count(*) FROM connector_session").pluck().get(), 0)
    db.close()
  })
})
