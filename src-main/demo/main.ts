import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { connect } from "@main/cli/client"
import { readyLine, startHeadless } from "@main/web/Headless"
import { startDemo, writeDemoConfig } from "./Demo"

// `npm run demo [-- DIR]`: the headless host in this process, with the demo's sample project (in DIR
// or a temporary directory) and three scripted sessions whose asks wait in the inbox. Data goes to
// GATEHOUSE_DATA_DIR when it is set, otherwise to a fresh temporary data directory.

const fail = (message: string): never => {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

/** True when server.json names a live process: that Gatehouse owns the data directory. */
function runningIn(dataDir: string): number | undefined {
  const file = join(dataDir, "server.json")
  if (!existsSync(file)) return undefined
  try {
    const { pid } = JSON.parse(readFileSync(file, "utf8")) as { pid: number }
    process.kill(pid, 0)
    return pid
  } catch {
    return undefined
  }
}

async function main(): Promise<void> {
  const [directory, ...extra] = process.argv.slice(2)
  if (extra.length > 0 || directory?.startsWith("-")) fail("Usage: npm run demo [-- DIR]")
  const explicit = process.env.GATEHOUSE_DATA_DIR
  const dataDir = explicit ? resolve(explicit) : mkdtempSync(join(tmpdir(), "gatehouse-demo-data-"))
  const pid = runningIn(dataDir)
  if (pid !== undefined)
    fail(`Gatehouse (process ${pid}) already runs with ${dataDir}; stop it, or unset GATEHOUSE_DATA_DIR.`)
  process.stderr.write(
    explicit
      ? `Demo data directory: ${dataDir} (GATEHOUSE_DATA_DIR)\n`
      : `Demo data directory: ${dataDir} (temporary; set GATEHOUSE_DATA_DIR to keep the demo elsewhere)\n`,
  )
  if (writeDemoConfig(dataDir)) process.stderr.write(`Wrote the demo's agents to ${join(dataDir, "config.jsonc")}\n`)

  const host = await startHeadless({ dataDir, port: explicit ? undefined : 0, env: process.env })
  const client = await connect({
    url: host.url,
    port: host.port,
    pid: process.pid,
    dataDir,
    supervisorToken: host.supervisorToken,
  })
  const demo = await startDemo({ dataDir, directory, call: client.call })
  process.stderr.write(`Sample project: ${demo.directory}\nChecklist page: ${demo.pageUrl}\n`)
  for (const note of demo.notes) process.stderr.write(`${note}\n`)
  for (const session of demo.sessions)
    process.stderr.write(`Started ${session.id}: ${session.title} (agent ${session.agent})\n`)
  process.stderr.write("Their asks are waiting in the inbox. Press Ctrl-C to stop the demo.\n")
  process.stdout.write(`${readyLine(host.url, host.supervisorToken)}\n`)

  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    setTimeout(() => fail("The demo did not shut down within 10 s"), 10_000).unref()
    client.close()
    Promise.all([demo.close(), host.close()]).then(
      () => process.exit(0),
      (error: unknown) => fail(`The demo shut down with an error: ${String(error)}`),
    )
  }
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, stop)
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))
