import { homedir } from "node:os"
import { isAbsolute, join, resolve } from "node:path"

export interface DataDirInput {
  readonly env: NodeJS.ProcessEnv
  /** Electron's `app.getPath("userData")`, when running inside Electron. */
  readonly electronUserData?: string
  readonly home?: string
}

/**
 * `GATEHOUSE_DATA_DIR` if set; else Electron's userData in the app; else the platform data
 * directory when headless (`$XDG_DATA_HOME/gatehouse`, falling back to `~/.local/share/gatehouse`).
 */
export function resolveDataDir(input: DataDirInput): string {
  const explicit = input.env.GATEHOUSE_DATA_DIR
  if (explicit) return resolve(explicit)
  if (input.electronUserData) return input.electronUserData
  const xdg = input.env.XDG_DATA_HOME
  if (xdg && isAbsolute(xdg)) return join(xdg, "gatehouse")
  return join(input.home ?? homedir(), ".local", "share", "gatehouse")
}
