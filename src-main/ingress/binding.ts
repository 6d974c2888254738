import { isAbsolute } from "node:path"
import { Agents } from "@core/session/Agents"

// What an MCP session binds to, read from the endpoint URL when the client initializes:
// `/mcp?project=<absolute dir>&agent=<name>`. Pure: the directory and the agent are checked by the
// caller against the real filesystem and the configured agents.

/** The Gatehouse session an MCP session becomes. */
export interface Binding {
  /** The project directory as the client named it (absolute; canonicalized by Projects). */
  readonly project: string
  readonly agent: string
}

export type Parsed =
  { readonly _tag: "ok"; readonly binding: Binding } | { readonly _tag: "invalid"; readonly reason: string }

/** The query parameters of `/mcp`; `agent` defaults to `build`. */
export function parseBinding(params: URLSearchParams): Parsed {
  const project = params.get("project")
  if (project === null || project.trim() === "")
    return {
      _tag: "invalid",
      reason:
        "Missing project: connect to /mcp?project=<absolute project directory> (gatehouse mcp-config prints the URL)",
    }
  if (!isAbsolute(project)) return { _tag: "invalid", reason: `The project directory must be absolute: ${project}` }
  const agent = params.get("agent")?.trim() || Agents.DEFAULT_AGENT
  return { _tag: "ok", binding: { project, agent } }
}

/** The client as `initialize` named it. */
export interface ClientInfo {
  readonly name: string
  readonly version: string
}

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** Control characters would only confuse the Sessions view (it escapes them anyway). */
const printable = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "").trim()

/** `initialize`'s `clientInfo`, cleaned up; a client that sends none is "unknown". */
export function clientInfoOf(params: unknown): ClientInfo {
  const info =
    typeof params === "object" && params !== null && "clientInfo" in params ? (params.clientInfo as unknown) : undefined
  const field = (key: string) =>
    typeof info === "object" &&
    info !== null &&
    key in info &&
    typeof (info as Record<string, unknown>)[key] === "string"
      ? printable((info as Record<string, string>)[key]!)
      : ""
  return { name: shorten(field("name") || "unknown", 100), version: shorten(field("version"), 50) }
}

/** The session's source column: `mcp:<client name>`. */
export const sourceOf = (client: ClientInfo) => `mcp:${client.name}`

/** The session's title: the client's name and version. */
export const titleOf = (client: ClientInfo) => (client.version ? `${client.name} ${client.version}` : client.name)
