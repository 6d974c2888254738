import type { Migration } from "./Migration"

// Every tool call a session made (`tool_call`, PRODUCT.md "Data and configuration"): written
// `running` before the tool executes and again when it ends, so a process that dies mid-call
// leaves a row the next start marks `interrupted` (SPEC-CORE A.5: never replayed). A call is named
// by its session, the assistant message that made it and the provider's call id. Rows go with
// their session.
//
// The session gains why it is in its status (`status_reason`: a failure message, "Gatehouse
// restarted", a step limit) and, for runner sessions, the provider that drives it.
export const migration0050: Migration = {
  version: 50,
  name: "tool-call",
  up(db) {
    db.exec(`
      CREATE TABLE tool_call (
        session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
        message_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        input TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'error', 'interrupted')),
        result_kind TEXT CHECK (result_kind IN ('text', 'json', 'content', 'error')),
        preview TEXT,
        output_paths TEXT,
        error TEXT,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        PRIMARY KEY (session_id, message_id, call_id),
        CHECK ((status = 'running') = (finished_at IS NULL)),
        CHECK ((status IN ('error', 'interrupted')) = (error IS NOT NULL)),
        CHECK (status <> 'completed' OR result_kind IS NOT NULL)
      ) STRICT;

      CREATE INDEX tool_call_running_idx ON tool_call (started_at) WHERE status = 'running';
      CREATE INDEX tool_call_session_idx ON tool_call (session_id, started_at);

      ALTER TABLE session ADD COLUMN status_reason TEXT;
      ALTER TABLE session ADD COLUMN provider TEXT;
      CREATE INDEX session_active_idx ON session (status) WHERE status IN ('running', 'blocked');
    `)
  },
}
