import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Schema } from "effect"

// `server.json` in the data directory: how to reach the running app or headless host (its url,
// port and pid; no secrets). The host writes it (web/Headless.ts); the `gatehouse` command reads
// it (cli/host.ts, ingress/discovery.ts). Kept apart from both so the command never loads the app.

export const ServerFile = Schema.Struct({ url: Schema.String, port: Schema.Int, pid: Schema.Int })
export type ServerFile = typeof ServerFile.Type

export const serverFileName = "server.json"

const decodeServerFile = Schema.decodeUnknownOption(Schema.fromJsonString(ServerFile))

/** The data directory's `server.json`: its content, or why there is none to use. */
export function readServerFile(dataDir: string): ServerFile | "missing" | "unreadable" {
  let text: string
  try {
    text = readFileSync(join(dataDir, serverFileName), "utf8")
  } catch {
    return "missing"
  }
  const decoded = decodeServerFile(text)
  return decoded._tag === "Some" ? decoded.value : "unreadable"
}
