import type { Migration } from "./Migration"
import { migration0010 } from "./0010-project-session"

/** Every migration, in order. Append only; the runner checks the versions strictly increase. */
export const migrations: ReadonlyArray<Migration> = [migration0010]
