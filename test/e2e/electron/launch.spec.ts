import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { expect, test } from "@playwright/test"
import { missingBinaryNotice } from "../../../src-main/electron/electronBinary"
import { makeDataDir, projectRoot, removeDataDir } from "../support/serve"

// `npm start` where the Electron binary is missing (always simulated here, so this runs on every
// machine): one line saying so, then the headless host's ready line, then a clean exit on SIGTERM.

const launcher = join(projectRoot, "out", "main", "launch.js")
const readyPattern = /^Gatehouse ready: (http:\/\/127\.0\.0\.1:\d+)\/#token=[0-9a-f]{64}$/

test("falls back to the headless host with a one-line notice and exits cleanly on SIGTERM", async () => {
  const dataDir = makeDataDir()
  try {
    const child = spawn(process.execPath, [launcher, "--port", "0"], {
      cwd: projectRoot,
      env: {
        ...process.env,
        GATEHOUSE_DATA_DIR: dataDir,
        GATEHOUSE_CONFIG: "",
        // Hide any installed binary, so the fallback is what runs.
        GATEHOUSE_ELECTRON_PACKAGE: join(dataDir, "no-electron-here"),
        ELECTRON_OVERRIDE_DIST_PATH: "",
      },
      stdio: ["ignore", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    const url = await new Promise<string>((ready, fail) => {
      child.once("exit", (code) => fail(new Error(`launch exited with ${code} before it was ready: ${stderr}`)))
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk
        const match = stdout.includes("\n") ? readyPattern.exec(stdout.split("\n")[0]!) : null
        if (match) ready(match[1]!)
      })
    })

    expect(stderr.split("\n")[0]).toBe(missingBinaryNotice)
    expect(stdout.split("\n").filter(Boolean)).toHaveLength(1)
    const page = await fetch(`${url}/`)
    expect(page.status).toBe(200)
    expect(existsSync(join(dataDir, "server.json"))).toBe(true)

    child.kill("SIGTERM")
    expect(await exited).toBe(0)
    expect(existsSync(join(dataDir, "server.json"))).toBe(false)
    expect(stderr.split("\n").filter(Boolean)).toEqual([missingBinaryNotice])
  } finally {
    removeDataDir(dataDir)
  }
})

test("the launcher's bundle never loads electron, directly or through a shared chunk", () => {
  const seen = new Set<string>()
  const imports = (file: string): Array<string> => {
    if (seen.has(file)) return []
    seen.add(file)
    const specifiers = [...readFileSync(file, "utf8").matchAll(/(?:from|import\(|require\()\s*["']([^"']+)["']/g)].map(
      (match) => match[1]!,
    )
    return specifiers.flatMap((specifier) =>
      specifier.startsWith(".") ? imports(join(dirname(file), specifier)) : [specifier],
    )
  }
  const external = imports(launcher)
  expect(seen.size).toBeGreaterThan(1)
  expect(external).not.toContain("electron")
})
