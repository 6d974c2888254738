import type { Migration } from "./Migration"

export const migration0010: Migration = {
  version: 10,
  name: "project-session",
  up(db) {
    db.exec(`
      CREATE TABLE project (
        id TEXT PRIMARY KEY,
        directory TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE session (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES project(id) ON DELETE CASCADE,
        agent TEXT NOT NULL,
        title TEXT NOT NULL,
        source TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'blocked', 'idle', 'stopped', 'declined', 'failed')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE INDEX session_project_idx ON session (project_id, updated_at);
    `)
  },
}
