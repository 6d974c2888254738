import type { Database } from "better-sqlite3"

/**
 * One schema change. A migration that has shipped is never edited; fixes are new migrations.
 * Versions step by 10 so a hotfix can slot in between (STYLE.md SG-14).
 */
export interface Migration {
  readonly version: number
  readonly name: string
  readonly up: (db: Database) => void
}
