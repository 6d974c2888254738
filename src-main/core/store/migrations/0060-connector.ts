import type { Migration } from "./Migration"

// Connectors (issue 9): agent servers Gatehouse supervises, e.g. `opencode serve`.
//
// - `connector`: the servers added in the UI (config.jsonc ones are read at start and never stored).
//   The password is kept here like the access tokens are kept beside it: in the data directory, for
//   this user only. Its name is the key every other row uses.
// - `connector_session`: which Gatehouse session mirrors which session of a server, so a restart of
//   either side finds the same Gatehouse session again. Rows go with their session.
// - `permission_request` learns where an ask came from: the connector (`opencode:<name>`), the ask's
//   id on that server, and whether it was answered there rather than in Gatehouse. Gatehouse's own
//   asks keep NULL, NULL, 0.
export const migration0060: Migration = {
  version: 60,
  name: "connector",
  up(db) {
    db.exec(`
      CREATE TABLE connector (
        name TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('opencode')),
        url TEXT NOT NULL,
        username TEXT,
        password TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE connector_session (
        connector TEXT NOT NULL,
        remote_id TEXT NOT NULL,
        session_id TEXT NOT NULL UNIQUE REFERENCES session(id) ON DELETE CASCADE,
        directory TEXT NOT NULL,
        PRIMARY KEY (connector, remote_id)
      ) STRICT;

      ALTER TABLE permission_request ADD COLUMN connector TEXT;
      ALTER TABLE permission_request ADD COLUMN remote_id TEXT;
      ALTER TABLE permission_request ADD COLUMN answered_remotely INTEGER NOT NULL DEFAULT 0
        CHECK (answered_remotely IN (0, 1));

      CREATE INDEX permission_request_connector_idx ON permission_request (connector, remote_id)
        WHERE connector IS NOT NULL;
    `)
  },
}
