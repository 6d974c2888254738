import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"

/** A fresh real directory (realpath'd, so symlinked /tmp does not confuse path tests). */
export function makeTempDir(prefix = "gatehouse-test-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

/** A temp directory that is removed when the test's scope closes. */
export const tempDir = (prefix?: string) =>
  Effect.acquireRelease(
    Effect.sync(() => makeTempDir(prefix)),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true })),
  )
