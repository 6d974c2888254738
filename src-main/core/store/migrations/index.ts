import type { Migration } from "./Migration"
import { migration0010 } from "./0010-project-session"
import { migration0020 } from "./0020-tool-output"

/** Every migration, in order. Append only; the runner checks the versions strictly increase. */
export const migrations: ReadonlyArray<Migration> = [migration0010, migration0020]
