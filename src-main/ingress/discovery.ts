import { readFileSync } from "node:fs"
import { homedir } from "node:os"
import { isAbsolute, join } from "node:path"
import { fileName } from "@core/auth/Tokens"
import { resolveDataDir } from "@main/app/paths"
import { readServerFile, serverFileName } from "@main/app/serverFile"

// How the `gatehouse` command finds the running app or headless host: its `server.json` (url,
// port, pid; no secret) and the agent token file in the data directory. Plain Node: the command
// must start fast and never load the application itself.

const agentTokenFileName = fileName("agent")

/** Electron names its directory after package.json's `name`. */
const appName = "gatehouse"

export interface Platform {
  readonly env: NodeJS.ProcessEnv
  readonly platform?: NodeJS.Platform
  readonly home?: string
}

/** Electron's `userData` for this app, as `app.getPath("userData")` computes it. */
export function electronUserData(input: Platform): string {
  const home = input.home ?? homedir()
  switch (input.platform ?? process.platform) {
    case "darwin":
      return join(home, "Library", "Application Support", appName)
    case "win32":
      return join(input.env.APPDATA ?? join(home, "AppData", "Roaming"), appName)
    default: {
      const xdg = input.env.XDG_CONFIG_HOME
      return join(xdg && isAbsolute(xdg) ? xdg : join(home, ".config"), appName)
    }
  }
}

/**
 * Where a running Gatehouse keeps its data: `GATEHOUSE_DATA_DIR` alone when set; otherwise the
 * headless host's directory, then the desktop app's.
 */
export function candidateDataDirs(input: Platform): ReadonlyArray<string> {
  if (input.env.GATEHOUSE_DATA_DIR) return [resolveDataDir({ env: input.env })]
  const headless = resolveDataDir({ env: input.env, ...(input.home !== undefined ? { home: input.home } : {}) })
  return [...new Set([headless, electronUserData(input)])]
}

/** The agent token of a data directory, or `undefined` when Gatehouse never ran there. */
export function readAgentToken(dataDir: string): string | undefined {
  try {
    const token = readFileSync(join(dataDir, agentTokenFileName), "utf8").trim()
    return /^[0-9a-f]{64}$/.test(token) ? token : undefined
  } catch {
    return undefined
  }
}

export interface Running {
  readonly dataDir: string
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly agentToken: string
}

export type Found =
  { readonly _tag: "running"; readonly running: Running } | { readonly _tag: "notRunning"; readonly message: string }

/** True when something answers HTTP at the url (any status: an unauthenticated probe gets 401). */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/mcp`, { method: "GET", signal: AbortSignal.timeout(3000) })
    await response.body?.cancel()
    return true
  } catch {
    return false
  }
}

const notRunningMessage = (dirs: ReadonlyArray<string>) =>
  `Gatehouse is not running: neither the app nor the headless host answers (looked for ${serverFileName} in ${dirs.join(
    " and ",
  )}). Start it with "npm start" (or "npm run serve" for the headless host), then try again.`

/** The first candidate directory whose server.json names a server that answers. */
export async function findRunning(input: Platform): Promise<Found> {
  const dirs = candidateDataDirs(input)
  for (const dataDir of dirs) {
    const file = readServerFile(dataDir)
    if (typeof file === "string" || !file.url.startsWith("http://127.0.0.1:")) continue
    if (!(await answers(file.url))) continue
    const agentToken = readAgentToken(dataDir)
    if (!agentToken)
      return {
        _tag: "notRunning",
        message: `Gatehouse runs at ${file.url} but its agent token (${join(dataDir, agentTokenFileName)}) cannot be read.`,
      }
    return { _tag: "running", running: { dataDir, url: file.url, agentToken } }
  }
  return { _tag: "notRunning", message: notRunningMessage(dirs) }
}
