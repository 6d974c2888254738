import type { PermissionRequestId, SessionId } from "@contract/ids"
import type { PermissionRequest } from "@contract/model"
import type { Ask } from "./wire"

// Pure translations between OpenCode's asks and Gatehouse's, and what a reconciliation changes.

/** The session source of a connection's sessions, and the decision log's connector. */
export const sourceOf = (name: string) => `opencode:${name}`

/** OpenCode's basic-auth user name when the server sets only `OPENCODE_SERVER_PASSWORD`. */
export const DEFAULT_USERNAME = "opencode"

/**
 * An OpenCode ask as the inbox shows it (SPEC-CORE's request shape): `permission` → action,
 * `patterns` → resources, `always` → save, `metadata` as it is (the command, the diff), the tool
 * call as the source. The ids are Gatehouse's: OpenCode's do not match its id schema.
 */
export function toRequest(ask: Ask, id: PermissionRequestId, sessionID: SessionId): PermissionRequest {
  return {
    id,
    sessionID,
    action: ask.permission,
    resources: [...ask.patterns],
    ...(ask.always !== undefined ? { save: [...ask.always] } : {}),
    ...(ask.metadata !== undefined ? { metadata: { ...ask.metadata } } : {}),
    ...(ask.tool !== undefined
      ? { source: { type: "tool" as const, messageID: ask.tool.messageID, callID: ask.tool.callID } }
      : {}),
  }
}

/** What a reconciliation against `GET /permission` changes for one directory. */
export interface Diff {
  /** Listed by the server and not known here: new asks (in the server's order). */
  readonly arrived: ReadonlyArray<Ask>
  /** Known here and no longer listed: answered or dropped while nobody was looking. */
  readonly gone: ReadonlyArray<string>
}

/** Compares the asks held for a directory (remote ids) with what the server lists now. */
export function reconcile(known: Iterable<string>, listed: ReadonlyArray<Ask>): Diff {
  const held = new Set(known)
  const seen = new Set<string>()
  const arrived: Array<Ask> = []
  for (const ask of listed) {
    if (seen.has(ask.id)) continue
    seen.add(ask.id)
    if (!held.has(ask.id)) arrived.push(ask)
  }
  return { arrived, gone: [...held].filter((id) => !seen.has(id)) }
}

const NAME = /^[A-Za-z0-9._-]{1,60}$/

/** Why a connection name cannot be used, or `undefined` when it can. */
export function nameProblem(name: string): string | undefined {
  if (NAME.test(name)) return undefined
  return "Use 1 to 60 letters, digits, dots, dashes or underscores, e.g. laptop or build-server"
}

/** `http(s)://host:port[/path]` without credentials, query or fragment, normalized; or why not. */
export function parseServerUrl(text: string): { readonly url: string } | { readonly problem: string } {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    return { problem: "Enter the server's address, e.g. http://127.0.0.1:4096" }
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { problem: "Use an http:// or https:// address" }
  if (url.username !== "" || url.password !== "")
    return { problem: "Leave the user name and password out of the address; use their own fields" }
  if (url.search !== "" || url.hash !== "") return { problem: "Remove the query or fragment from the address" }
  const path = url.pathname.replace(/\/+$/, "")
  return { url: `${url.protocol}//${url.host}${path}` }
}

/** A name for a server added without one: its host and port (`127.0.0.1-4096`). */
export function defaultName(url: string): string {
  const parsed = new URL(url)
  const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80")
  const host = parsed.hostname.replace(/^\[|\]$/g, "").replace(/[^A-Za-z0-9._-]/g, "-")
  return `${host}-${port}`.slice(0, 60)
}

/** The `Authorization` header for HTTP basic auth, or none without a password. */
export function authorization(username: string | undefined, password: string | undefined): string | undefined {
  if (password === undefined || password === "") return undefined
  const user = username === undefined || username === "" ? DEFAULT_USERNAME : username
  return `Basic ${Buffer.from(`${user}:${password}`, "utf8").toString("base64")}`
}

/**
 * The machine a server runs on, when it is not this one: its host name (so every server on that
 * host shares its projects); `undefined` for a loopback address, whose directories are local.
 */
export function remoteMachine(url: string): string | undefined {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase()
  if (host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host)) return undefined
  return host
}
