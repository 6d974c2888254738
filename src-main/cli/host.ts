import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Schema } from "effect"
import { fileName } from "@core/auth/Tokens"
import { resolveDataDir } from "@main/app/paths"

// How a command finds the Gatehouse that is running for this data directory: `server.json` (written
// by the headless host, src-main/web/Headless.ts) says where it listens, and the supervisor token
// file admits this process as the person would be admitted. Kept free of the app's layers so the
// `gatehouse` bin starts quickly.

/** `server.json`: `{ url, port, pid }`, no secrets (the shape Headless.ts writes). */
const ServerFile = Schema.Struct({ url: Schema.String, port: Schema.Int, pid: Schema.Int })
const decodeServerFile = Schema.decodeUnknownExit(Schema.fromJsonString(ServerFile))

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

/** Reads `server.json` and the supervisor token of the data directory `env` selects. */
export function findHost(env: NodeJS.ProcessEnv): Host {
  const dataDir = resolveDataDir({ env })
  const start = "Start it with `npm start` or `npm run serve` (or set GATEHOUSE_DATA_DIR to its data directory)."
  let text: string
  try {
    text = readFileSync(join(dataDir, "server.json"), "utf8")
  } catch {
    throw new NotRunningError(`Gatehouse is not running for ${dataDir}: there is no server.json. ${start}`)
  }
  const decoded = decodeServerFile(text)
  if (decoded._tag === "Failure")
    throw new NotRunningError(`Gatehouse is not running for ${dataDir}: server.json is unreadable. ${start}`)
  const server = decoded.value
  if (!isAlive(server.pid))
    throw new NotRunningError(
      `Gatehouse is not running for ${dataDir}: server.json names process ${server.pid}, which has exited. ${start}`,
    )
  let token: string
  try {
    token = readFileSync(join(dataDir, fileName("supervisor")), "utf8").trim()
  } catch {
    throw new NotRunningError(`Cannot read the supervisor token in ${dataDir}.`)
  }
  return { url: server.url, port: server.port, pid: server.pid, dataDir, supervisorToken: token }
}
