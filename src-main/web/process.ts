import { resolveDataDir } from "@main/app/paths"
import { parseServeArgs } from "./args"
import { readyLine, startHeadless } from "./Headless"

export interface RunOptions {
  readonly argv: ReadonlyArray<string>
  readonly env: NodeJS.ProcessEnv
  /** Where the built renderer is (default: beside the built main bundle). */
  readonly rendererDir?: string
}

const fail = (message: string): never => {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

/**
 * The headless host as a process (`npm run serve`, and `npm start` without Electron): stdout
 * carries exactly the ready line, every diagnostic goes to stderr, and SIGINT/SIGTERM/SIGHUP
 * dispose the runtime (finalizers run, the database closes) and exit 0.
 */
export async function runHeadlessProcess(options: RunOptions): Promise<void> {
  let port: number | undefined
  try {
    port = parseServeArgs(options.argv).port
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error))
  }
  const host = await startHeadless({
    dataDir: resolveDataDir({ env: options.env }),
    port,
    env: options.env,
    ...(options.rendererDir ? { rendererDir: options.rendererDir } : {}),
  }).catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))

  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    // A finalizer that hangs must not keep the process alive forever.
    setTimeout(() => fail(`Gatehouse did not shut down within 10 s after ${signal}`), 10_000).unref()
    host.close().then(
      () => process.exit(0),
      (error: unknown) => fail(`Gatehouse shut down with an error: ${String(error)}`),
    )
  }
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => stop(signal))
  process.stdout.write(`${readyLine(host.url, host.supervisorToken)}\n`)
}
