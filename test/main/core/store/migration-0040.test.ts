import Database from "better-sqlite3"
import { assert, describe, it } from "@effect/vitest"
import { migrate } from "@core/store/Store"
import { migrations } from "@core/store/migrations"

const upTo = (version: number) => migrations.filter((m) => m.version <= version)
const plan = (db: Database.Database, query: string, ...params: unknown[]) =>
  JSON.stringify(db.prepare(`EXPLAIN QUERY PLAN ${query}`).all(...params))

describe("Store/migration 0040", () => {
  it("adds STRICT todo and question tables that belong to existing sessions", () => {
    const db = new Database(":memory:")
    db.pragma("foreign_keys = ON")
    migrate(db, ":memory:", upTo(30))
    db.prepare("INSERT INTO project VALUES ('prj_1', '/repo', 'repo', 1, 1)").run()
    db.prepare("INSERT INTO session VALUES ('ses_1', 'prj_1', 'build', 't', 'runner', 'idle', 1, 1)").run()
    db.prepare("INSERT INTO session VALUES ('ses_2', 'prj_1', 'build', 'u', 'runner', 'idle', 1, 1)").run()
    db.prepare(
      `INSERT INTO permission_request (id, session_id, project_id, action, resources, status, created_at)
       VALUES ('per_1', 'ses_1', 'prj_1', 'bash', '["ls"]', 'pending', 1)`,
    ).run()

    migrate(db, ":memory:", upTo(40))
    assert.strictEqual(db.pragma("user_version", { simple: true }), 40)
    assert.strictEqual(db.prepare("SELECT count(*) FROM session").pluck().get(), 2)
    assert.strictEqual(db.prepare("SELECT status FROM permission_request WHERE id = 'per_1'").pluck().get(), "pending")
    for (const table of ["todo", "question"]) {
      const ddl = db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").pluck().get(table) as string
      assert.match(ddl, /\)\s*STRICT$/)
    }

    const todo = db.prepare("INSERT INTO todo (session_id, position, content, status, priority) VALUES (?, ?, ?, ?, ?)")
    todo.run("ses_1", 0, "write tests", "in_progress", "high")
    todo.run("ses_1", 1, "ship", "pending", "low")
    todo.run("ses_2", 0, "other", "completed", "medium")
    assert.throws(() => todo.run("ses_1", 1, "duplicate position", "pending", "low"), /UNIQUE|PRIMARY KEY/)
    assert.throws(() => todo.run("ses_1", 2, "x", "done", "low"), /CHECK/)
    assert.throws(() => todo.run("ses_1", 2, "x", "pending", "urgent"), /CHECK/)
    assert.throws(() => todo.run("ses_1", -1, "x", "pending", "low"), /CHECK/)
    assert.throws(() => todo.run("ses_x", 0, "x", "pending", "low"), /FOREIGN KEY/)
    assert.throws(() => todo.run("ses_1", "two", "x", "pending", "low"), /cannot store TEXT value in INTEGER column/)
    assert.deepStrictEqual(
      db.prepare("SELECT content FROM todo WHERE session_id = 'ses_1' ORDER BY position").pluck().all(),
      ["write tests", "ship"],
    )

    const question = db.prepare(
      `INSERT INTO question (id, session_id, message_id, call_id, questions, answers, status, created_at, decided_at)
       VALUES (?, ?, 'msg_1', 'call_1', '[]', ?, ?, 1, ?)`,
    )
    question.run("que_1", "ses_1", null, "pending", null)
    question.run("que_2", "ses_1", '[["Yes"]]', "answered", 2)
    question.run("que_3", "ses_2", null, "rejected", 2)
    question.run("que_4", "ses_2", null, "interrupted", 2)
    assert.throws(() => question.run("que_5", "ses_1", null, "maybe", 2), /CHECK/)
    assert.throws(() => question.run("que_6", "ses_1", null, "answered", 2), /CHECK/)
    assert.throws(() => question.run("que_7", "ses_1", '[["No"]]', "rejected", 2), /CHECK/)
    assert.throws(() => question.run("que_8", "ses_1", null, "pending", 2), /CHECK/)
    assert.throws(() => question.run("que_9", "ses_1", null, "rejected", null), /CHECK/)
    assert.throws(() => question.run("que_10", "ses_x", null, "pending", null), /FOREIGN KEY/)

    assert.include(
      plan(db, "SELECT * FROM todo WHERE session_id = ? ORDER BY position", "ses_1"),
      "sqlite_autoindex_todo_1",
    )
    assert.include(plan(db, "SELECT id FROM question WHERE status = 'pending'"), "question_pending_idx")
    assert.include(
      plan(db, "SELECT * FROM question WHERE session_id = ? ORDER BY created_at", "ses_1"),
      "question_session_idx",
    )

    db.prepare("DELETE FROM session WHERE id = 'ses_1'").run()
    assert.strictEqual(db.prepare("SELECT count(*) FROM todo").pluck().get(), 1)
    assert.deepStrictEqual(db.prepare("SELECT id FROM question ORDER BY id").pluck().all(), ["que_3", "que_4"])
    db.close()
  })
})
