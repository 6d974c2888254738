import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { fileName } from "@core/auth/Tokens"
import { serverFileName } from "@main/app/serverFile"
import { findHost, NotRunningError } from "@main/cli/host"
import { makeTempDir } from "../../support/temp"

// How `gatehouse run` finds the running Gatehouse without GATEHOUSE_DATA_DIR: the headless host's
// data directory first, then the desktop app's.

/** Makes `dataDir` look like the data directory of a Gatehouse running as this process. */
const running = (dataDir: string, port: number) => {
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(
    join(dataDir, serverFileName),
    JSON.stringify({ url: `http://127.0.0.1:${port}`, port, pid: process.pid }),
  )
  writeFileSync(join(dataDir, fileName("supervisor")), `${"ab".repeat(32)}\n`)
}

describe("findHost", () => {
  it("finds the desktop app when only the app runs, and prefers the headless host when both do", () => {
    const root = makeTempDir()
    const env = { XDG_DATA_HOME: join(root, "data"), XDG_CONFIG_HOME: join(root, "config") }
    const app = join(root, "config", "gatehouse")
    const headless = join(root, "data", "gatehouse")

    running(app, 7401)
    const found = findHost(env)
    assert.strictEqual(found.dataDir, app)
    assert.strictEqual(found.url, "http://127.0.0.1:7401")
    assert.strictEqual(found.supervisorToken, "ab".repeat(32))

    running(headless, 7402)
    assert.strictEqual(findHost(env).dataDir, headless)
  })

  it("names the headless directory's problem when neither runs", () => {
    const root = makeTempDir()
    const env = { XDG_DATA_HOME: join(root, "data"), XDG_CONFIG_HOME: join(root, "config") }
    assert.throws(
      () => findHost(env),
      NotRunningError,
      `Gatehouse is not running for ${join(root, "data", "gatehouse")}: there is no server.json.`,
    )
  })
})
