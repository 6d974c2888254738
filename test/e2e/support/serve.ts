import { spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const projectRoot = resolve(import.meta.dirname, "..", "..", "..")
export const builtServe = join(projectRoot, "out", "main", "serve.js")
export const builtRenderer = join(projectRoot, "out", "renderer", "index.html")

const readyPattern = /^Gatehouse ready: (http:\/\/127\.0\.0\.1:(\d+))\/#token=([0-9a-f]{64})$/

/** A running `node out/main/serve.js`, as the person starts it. */
export interface ServeProcess {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly port: number
  readonly token: string
  /** The URL exactly as printed on the ready line. */
  readonly readyUrl: string
  readonly dataDir: string
  readonly child: ChildProcess
  /** Everything the process wrote to stdout so far. */
  readonly stdout: () => string
  readonly stderr: () => string
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  readonly stop: () => Promise<number | null>
}

export const makeDataDir = () => realpathSync(mkdtempSync(join(tmpdir(), "gatehouse-e2e-")))

/** Starts the headless host on `port` (default 0: any free port) and waits for its ready line. */
export function startServe(options: { dataDir: string; port?: number }): Promise<ServeProcess> {
  const child = spawn(process.execPath, [builtServe, "--port", String(options.port ?? 0)], {
    cwd: projectRoot,
    env: { ...process.env, GATEHOUSE_DATA_DIR: options.dataDir, GATEHOUSE_CONFIG: "" },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let stdout = ""
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
  return new Promise<ServeProcess>((ready, fail) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      fail(new Error(`serve printed no ready line within 20 s; stderr: ${stderr}`))
    }, 20_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      fail(new Error(`serve exited with ${code} before it was ready; stderr: ${stderr}`))
    })
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      const line = stdout.split("\n")[0]
      const match = stdout.includes("\n") && line ? readyPattern.exec(line) : null
      if (!match) return
      clearTimeout(timer)
      ready({
        url: match[1]!,
        port: Number(match[2]),
        token: match[3]!,
        readyUrl: line!.slice("Gatehouse ready: ".length),
        dataDir: options.dataDir,
        child,
        stdout: () => stdout,
        stderr: () => stderr,
        stop: () => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
          return exited
        },
      })
    })
  })
}

export const removeDataDir = (dataDir: string) => rmSync(dataDir, { recursive: true, force: true })
