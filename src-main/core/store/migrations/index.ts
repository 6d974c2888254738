import type { Migration } from "./Migration"
import { migration0010 } from "./0010-project-session"
import { migration0020 } from "./0020-tool-output"
import { migration0030 } from "./0030-permission"
import { migration0040 } from "./0040-todo-question"
import { migration0050 } from "./0050-tool-call"
import { migration0060 } from "./0060-connector"

/** Every migration, in order. Append only; the runner checks the versions strictly increase. */
export const migrations: ReadonlyArray<Migration> = [
  migration0010,
  migration0020,
  migration0030,
  migration0040,
  migration0050,
  migration0060,
]
