import { spawn } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { bundleForChild } from "../../support/child"
import { makeTempDir } from "../../support/temp"

// `serve` as a real process. The entry is bundled from source with esbuild (the same file that
// electron-vite builds into out/main/serve.js), so this suite does not depend on a prior build;
// the Playwright suite runs the electron-vite output itself.

let entry: string

beforeAll(async () => {
  entry = await bundleForChild("serve", `import ${JSON.stringify(resolve("src-main/web/serve.ts"))}`)
})

interface Run {
  readonly ready: Promise<string>
  readonly exit: Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>
  readonly kill: (signal: NodeJS.Signals) => void
}

function run(dataDir: string, args: ReadonlyArray<string> = ["--port", "0"], env: NodeJS.ProcessEnv = {}): Run {
  const child = spawn(process.execPath, [entry, ...args], {
    env: { PATH: process.env.PATH, GATEHOUSE_DATA_DIR: dataDir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let stdout = ""
  let stderr = ""
  let onLine: (line: string) => void = () => {}
  const ready = new Promise<string>((resolveLine) => (onLine = resolveLine))
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk
    if (stdout.includes("\n")) onLine(stdout.split("\n")[0]!)
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
    child.on("close", (code) => done({ code, stdout, stderr })),
  )
  return { ready, exit, kill: (signal) => child.kill(signal) }
}

describe("serve", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`prints one ready line, writes server.json, and on ${signal} closes everything and exits 0`, async () => {
      const dataDir = makeTempDir()
      const child = run(dataDir)
      const line = await child.ready
      const match = /^Gatehouse ready: (http:\/\/127\.0\.0\.1:(\d+))\/#token=([0-9a-f]{64})$/.exec(line)
      assert.isNotNull(match, line)
      const token = readFileSync(join(dataDir, "supervisor.token"), "utf8").trim()
      assert.strictEqual(match![3], token)
      const server = JSON.parse(readFileSync(join(dataDir, "server.json"), "utf8")) as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(server).sort(), ["pid", "port", "url"])
      assert.strictEqual(server.url, match![1])
      assert.strictEqual(server.port, Number(match![2]))
      assert.isTrue((await fetch(`${match![1]}/`)).status > 0)

      child.kill(signal)
      const { code, stdout } = await child.exit
      assert.strictEqual(code, 0)
      assert.strictEqual(stdout, `${line}\n`)
      assert.isFalse(existsSync(join(dataDir, "server.json")))
      assert.isFalse(existsSync(join(dataDir, "gatehouse.db-wal")))
    })
  }

  it("does not start on an invalid config.jsonc: the message goes to stderr, nothing to stdout, exit 1", async () => {
    const dataDir = makeTempDir()
    writeFileSync(join(dataDir, "config.jsonc"), `{ "tool_output": { "max_lines": 0 } }`)
    const { code, stdout, stderr } = await run(dataDir).exit
    assert.strictEqual(code, 1)
    assert.strictEqual(stdout, "")
    assert.match(stderr, /^Invalid configuration in .*config\.jsonc at tool_output\.max_lines: /)
    assert.isFalse(existsSync(join(dataDir, "server.json")))
  })

  it("rejects a bad --port with the usage", async () => {
    const { code, stdout, stderr } = await run(makeTempDir(), ["--port", "http"]).exit
    assert.strictEqual(code, 1)
    assert.strictEqual(stdout, "")
    assert.include(stderr, "--port needs a number from 0 to 65535")
  })
})
