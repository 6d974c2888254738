import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileName } from "@core/auth/Tokens"
import { readServerFile } from "@main/app/serverFile"
import { candidateDataDirs } from "@main/ingress/discovery"

// How a command finds the Gatehouse that is running: `server.json` (written by the app or the
// headless host) says where it listens, and the supervisor token file admits this process as the
// person would be admitted. Kept free of the app's layers so the `gatehouse` bin starts quickly.

/** Where the UI's WebSocket listens (src-main/web/ContractSocket.ts). */
export const socketPath = "/ws"

export interface Host {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  readonly port: number
  readonly pid: number
  readonly dataDir: string
  readonly supervisorToken: string
}

/** Nothing usable is running for the data directory; the message says what to do. */
export class NotRunningError extends Error {
  override readonly name = "NotRunningError"
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The running Gatehouse of one data directory, or why there is none there. */
function hostIn(dataDir: string): Host | NotRunningError {
  const start = "Start it with `npm start` or `npm run serve` (or set GATEHOUSE_DATA_DIR to its data directory)."
  const server = readServerFile(dataDir)
  if (server === "missing")
    return new NotRunningError(`Gatehouse is not running for ${dataDir}: there is no server.json. ${start}`)
  if (server === "unreadable")
    return new NotRunningError(`Gatehouse is not running for ${dataDir}: server.json is unreadable. ${start}`)
  if (!isAlive(server.pid))
    return new NotRunningError(
      `Gatehouse is not running for ${dataDir}: server.json names process ${server.pid}, which has exited. ${start}`,
    )
  let token: string
  try {
    token = readFileSync(join(dataDir, fileName("supervisor")), "utf8").trim()
  } catch {
    return new NotRunningError(`Cannot read the supervisor token in ${dataDir}.`)
  }
  return { url: server.url, port: server.port, pid: server.pid, dataDir, supervisorToken: token }
}

/**
 * The running Gatehouse the command talks to: the first of the data directories `env` selects
 * (GATEHOUSE_DATA_DIR alone; else the headless host's, then the desktop app's) that has one. When
 * none has, the error says what is wrong with the first.
 */
export function findHost(env: NodeJS.ProcessEnv): Host {
  const results = candidateDataDirs({ env }).map(hostIn)
  const found = results.find((result) => !(result instanceof NotRunningError))
  if (found) return found as Host
  throw results[0]
}
