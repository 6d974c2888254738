import type { Migration } from "./Migration"

// Managed tool-output files (ToolOutputStore). A row outlives its file: the sweep and a delete set
// `deleted_at`, so the UI can still say what was there. No foreign key to `session`: settlement
// must never fail because the provenance it was given is not (or no longer) a stored session.
export const migration0020: Migration = {
  version: 20,
  name: "tool-output",
  up(db) {
    db.exec(`
      CREATE TABLE tool_output (
        id TEXT PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        bytes INTEGER NOT NULL CHECK (bytes >= 0),
        lines INTEGER NOT NULL CHECK (lines >= 1),
        session_id TEXT,
        tool_call_id TEXT,
        tool_name TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        deleted_at INTEGER
      ) STRICT;

      CREATE INDEX tool_output_live_idx ON tool_output (created_at) WHERE deleted_at IS NULL;
      CREATE INDEX tool_output_session_idx ON tool_output (session_id, created_at) WHERE deleted_at IS NULL;
      CREATE INDEX tool_output_expiry_idx ON tool_output (expires_at) WHERE deleted_at IS NULL;
    `)
  },
}
