import { spawn } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  findElectronBinary,
  installedElectronVersion,
  missingBinaryNotice,
  projectRoot,
} from "./electron/electronBinary"
import { electronRebuild, ensureElectronNative } from "./electron/nativeBinding"
import { runHeadlessProcess } from "./web/process"

// `npm start` (after `electron-vite build`): a plain-Node launcher that never imports electron.
// With the Electron binary installed it makes sure the Electron build of better-sqlite3 exists and
// runs the app; without it (build machines cannot download it) it says so in one line and runs the
// headless host in this process instead.

const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const

const fail = (message: string): never => {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

async function runElectron(root: string, binary: string): Promise<void> {
  const electron = installedElectronVersion(root, process.env)
  try {
    await ensureElectronNative({
      root,
      target: { electronVersion: electron.version, platform: process.platform, arch: process.arch },
      abi: electron.abi,
      rebuild: electronRebuild(root),
      log: (line) => process.stderr.write(`${line}\n`),
    })
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error))
  }
  // An inherited ELECTRON_RUN_AS_NODE would turn the app into a bare Node process.
  const env = { ...process.env }
  delete env.ELECTRON_RUN_AS_NODE
  const child = spawn(binary, ["."], { cwd: root, env, stdio: "inherit" })
  for (const signal of signals) process.on(signal, () => child.kill(signal))
  child.on("error", (error) => fail(`Cannot start Electron (${binary}): ${error.message}`))
  child.on("exit", (code, signal) => {
    if (signal) {
      // Die of the same signal, so whoever started `npm start` sees what happened.
      for (const name of signals) process.removeAllListeners(name)
      process.kill(process.pid, signal)
    } else {
      process.exit(code ?? 1)
    }
  })
}

async function runHeadless(root: string): Promise<void> {
  process.stderr.write(`${missingBinaryNotice}\n`)
  await runHeadlessProcess({
    argv: process.argv.slice(2),
    env: process.env,
    rendererDir: join(root, "out", "renderer"),
  })
}

async function main(): Promise<void> {
  const root = projectRoot(fileURLToPath(import.meta.url))
  const binary = findElectronBinary(root, process.env)
  if (binary) await runElectron(root, binary)
  else await runHeadless(root)
}

main().catch((error: unknown) => fail(error instanceof Error ? (error.stack ?? error.message) : String(error)))
