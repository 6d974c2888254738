import { resolveDataDir } from "@main/app/paths"
import { parseServeArgs } from "./args"
import { readyLine, startHeadless, type Headless } from "./Headless"

// `npm run serve`: the headless host as a process. stdout carries exactly the ready line; every
// diagnostic goes to stderr. SIGINT/SIGTERM dispose the runtime and exit 0.

const fail = (message: string) => {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

async function main() {
  let port: number | undefined
  try {
    port = parseServeArgs(process.argv.slice(2)).port
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }
  const dataDir = resolveDataDir({ env: process.env })
  let host: Headless
  try {
    host = await startHeadless({ dataDir, port, env: process.env })
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }

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
  process.on("SIGINT", stop)
  process.on("SIGTERM", stop)

  process.stdout.write(`${readyLine(host.url, host.supervisorToken)}\n`)
}

void main()
