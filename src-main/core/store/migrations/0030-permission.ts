import type { Migration } from "./Migration"

// Saved approvals (`permission`, SPEC-CORE D.8) and the decision log (`permission_request`,
// project decisions 4 and 5). The log has no foreign key to `session`: the record of what a person
// decided outlives the session it was about. Both go with their project.
export const migration0030: Migration = {
  version: 30,
  name: "permission",
  up(db) {
    db.exec(`
      CREATE TABLE permission_request (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        project_id TEXT NOT NULL REFERENCES project(id) ON DELETE CASCADE,
        message_id TEXT,
        call_id TEXT,
        action TEXT NOT NULL,
        resources TEXT NOT NULL,
        save TEXT,
        metadata TEXT,
        agent TEXT,
        status TEXT NOT NULL CHECK (status IN
          ('pending', 'once', 'always', 'reject', 'corrected', 'cascade', 'auto', 'interrupted', 'expired')),
        decided_by TEXT CHECK (decided_by IN ('person', 'approval', 'rule', 'system')),
        decided_ref TEXT,
        feedback TEXT,
        created_at INTEGER NOT NULL,
        decided_at INTEGER,
        CHECK ((status = 'pending') = (decided_at IS NULL)),
        CHECK ((status = 'pending') = (decided_by IS NULL))
      ) STRICT;

      CREATE INDEX permission_request_pending_idx ON permission_request (created_at) WHERE status = 'pending';
      CREATE INDEX permission_request_session_idx ON permission_request (session_id, created_at);
      CREATE INDEX permission_request_project_idx ON permission_request (project_id, created_at);

      CREATE TABLE permission (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES project(id) ON DELETE CASCADE,
        action TEXT NOT NULL,
        resource TEXT NOT NULL,
        request_id TEXT REFERENCES permission_request(id) ON DELETE SET NULL,
        hit_count INTEGER NOT NULL DEFAULT 0 CHECK (hit_count >= 0),
        last_used_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE UNIQUE INDEX permission_project_action_resource_idx ON permission (project_id, action, resource);
    `)
  },
}
