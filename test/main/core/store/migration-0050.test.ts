import Database from "better-sqlite3"
import { assert, describe, it } from "@effect/vitest"
import { migrate } from "@core/store/Store"
import { migrations } from "@core/store/migrations"

const upTo = (version: number) => migrations.filter((m) => m.version <= version)
const plan = (db: Database.Database, query: string, ...params: unknown[]) =>
  JSON.stringify(db.prepare(`EXPLAIN QUERY PLAN ${query}`).all(...params))

describe("Store/migration 0050", () => {
  it("adds a STRICT tool_call table and the session's status reason and provider, keeping existing sessions", () => {
    const db = new Database(":memory:")
    db.pragma("foreign_keys = ON")
    migrate(db, ":memory:", upTo(40))
    db.prepare("INSERT INTO project VALUES ('prj_1', '/repo', 'repo', 1, 1)").run()
    db.prepare("INSERT INTO session VALUES ('ses_1', 'prj_1', 'build', 't', 'runner', 'running', 1, 1)").run()
    db.prepare("INSERT INTO session VALUES ('ses_2', 'prj_1', 'plan', 'u', 'mcp:cli', 'idle', 2, 2)").run()
    db.prepare("INSERT INTO todo VALUES ('ses_1', 0, 'x', 'pending', 'low')").run()

    migrate(db, ":memory:", upTo(50))
    assert.strictEqual(db.pragma("user_version", { simple: true }), 50)
    assert.deepStrictEqual(db.prepare("SELECT id, status, status_reason, provider FROM session ORDER BY id").all(), [
      { id: "ses_1", status: "running", status_reason: null, provider: null },
      { id: "ses_2", status: "idle", status_reason: null, provider: null },
    ])
    assert.strictEqual(db.prepare("SELECT count(*) FROM todo").pluck().get(), 1)
    const ddl = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'tool_call'").pluck().get() as string
    assert.match(ddl, /\)\s*STRICT$/)
    assert.throws(
      () => db.prepare("UPDATE session SET provider = X'00' WHERE id = 'ses_1'").run(),
      /cannot store BLOB value in TEXT column/,
    )

    const insert = db.prepare(
      `INSERT INTO tool_call (session_id, message_id, call_id, tool, input, status, result_kind, preview, output_paths,
         error, started_at, finished_at)
       VALUES (?, 'msg_1', ?, 'read', '{"filePath":"a"}', ?, ?, ?, ?, ?, 10, ?)`,
    )
    insert.run("ses_1", "call_1", "running", null, null, null, null, null)
    insert.run("ses_1", "call_2", "completed", "text", "hello", '["/out/tool_1"]', null, 11)
    insert.run("ses_1", "call_3", "error", "error", "File not found", null, "File not found", 11)
    insert.run("ses_2", "call_1", "interrupted", null, null, null, "Tool execution interrupted", 12)
    assert.throws(() => insert.run("ses_1", "call_1", "running", null, null, null, null, null), /PRIMARY KEY|UNIQUE/)
    assert.throws(() => insert.run("ses_1", "call_4", "done", "text", "x", null, null, 11), /CHECK/)
    assert.throws(() => insert.run("ses_1", "call_5", "running", null, null, null, null, 11), /CHECK/)
    assert.throws(() => insert.run("ses_1", "call_6", "completed", "text", "x", null, null, null), /CHECK/)
    assert.throws(() => insert.run("ses_1", "call_7", "completed", null, "x", null, null, 11), /CHECK/)
    assert.throws(() => insert.run("ses_1", "call_8", "error", "error", "x", null, null, 11), /CHECK/)
    assert.throws(() => insert.run("ses_1", "call_9", "completed", "image", "x", null, null, 11), /CHECK/)
    assert.throws(() => insert.run("ses_x", "call_1", "running", null, null, null, null, null), /FOREIGN KEY/)

    assert.include(plan(db, "SELECT * FROM tool_call WHERE status = 'running'"), "tool_call_running_idx")
    assert.include(
      plan(db, "SELECT * FROM tool_call WHERE session_id = ? ORDER BY started_at", "ses_1"),
      "tool_call_session_idx",
    )
    assert.include(plan(db, "SELECT id FROM session WHERE status IN ('running', 'blocked')"), "session_active_idx")

    db.prepare("DELETE FROM session WHERE id = 'ses_1'").run()
    assert.deepStrictEqual(db.prepare("SELECT session_id, call_id FROM tool_call").all(), [
      { session_id: "ses_2", call_id: "call_1" },
    ])
    db.close()
  })
})
