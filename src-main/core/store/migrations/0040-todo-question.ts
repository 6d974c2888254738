import type { Migration } from "./Migration"

// Session todo lists (`todo`, SPEC-CORE H.3: one row per item, replaced whole by `todowrite`) and
// the questions the `question` tool asked (`question`, SPEC-CORE E.12), kept after they end so the
// inbox can show what was asked and answered. Both belong to their session.
export const migration0040: Migration = {
  version: 40,
  name: "todo-question",
  up(db) {
    db.exec(`
      CREATE TABLE todo (
        session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        content TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed', 'cancelled')),
        priority TEXT NOT NULL CHECK (priority IN ('high', 'medium', 'low')),
        PRIMARY KEY (session_id, position)
      ) STRICT;

      CREATE TABLE question (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
        message_id TEXT,
        call_id TEXT,
        questions TEXT NOT NULL,
        answers TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'rejected', 'interrupted')),
        created_at INTEGER NOT NULL,
        decided_at INTEGER,
        CHECK ((status = 'pending') = (decided_at IS NULL)),
        CHECK ((status = 'answered') = (answers IS NOT NULL))
      ) STRICT;

      CREATE INDEX question_pending_idx ON question (created_at) WHERE status = 'pending';
      CREATE INDEX question_session_idx ON question (session_id, created_at);
    `)
  },
}
