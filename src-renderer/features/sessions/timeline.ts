import type { ProjectId, SessionId } from "@contract/ids"
import type { Session, SessionStatus, ToolCall } from "@contract/model"

// Pure helpers of the sessions view: what a tool call's input says in one line, how long it ran,
// how the table filters and orders sessions, and how many pending items each session has.

const MAX_SUMMARY = 240

const text = (value: unknown) => (typeof value === "string" ? value : undefined)

function clip(value: string): string {
  return value.length > MAX_SUMMARY ? `${value.slice(0, MAX_SUMMARY - 1)}…` : value
}

/** The part of a call's input a person recognizes it by: the command, the path, the URL, the query. */
export function inputSummary(tool: string, input: unknown): string {
  const record =
    typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {}
  switch (tool) {
    case "bash": {
      const command = text(record.command)
      if (command !== undefined)
        return clip(text(record.workdir) ? `${command}  (in ${text(record.workdir)})` : command)
      break
    }
    case "read":
    case "write":
    case "edit": {
      const path = text(record.path) ?? text(record.filePath)
      if (path !== undefined) return clip(path)
      break
    }
    case "glob":
    case "grep": {
      const pattern = text(record.pattern)
      if (pattern !== undefined) return clip(text(record.path) ? `${pattern}  (in ${text(record.path)})` : pattern)
      break
    }
    case "webfetch": {
      const url = text(record.url)
      if (url !== undefined) return clip(url)
      break
    }
    case "websearch": {
      const query = text(record.query)
      if (query !== undefined) return clip(query)
      break
    }
    case "skill": {
      const name = text(record.name)
      if (name !== undefined) return clip(name)
      break
    }
    case "apply_patch": {
      const patch = text(record.patchText)
      if (patch !== undefined) {
        const files = [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.*)$/gm)].map((match) => match[1]!)
        if (files.length > 0) return clip(files.join(", "))
      }
      break
    }
    case "todowrite":
      if (Array.isArray(record.todos)) return `${record.todos.length} todo${record.todos.length === 1 ? "" : "s"}`
      break
    case "question":
      if (Array.isArray(record.questions)) {
        const first = record.questions[0] as { question?: unknown } | undefined
        if (first && typeof first.question === "string") return clip(first.question)
      }
      break
  }
  if (typeof input === "string") return clip(input)
  let json: string | undefined
  try {
    json = JSON.stringify(input)
  } catch {
    json = undefined
  }
  return clip(json ?? String(input))
}

/** How long a call ran (or has been running, at `now`). */
export const callDuration = (call: Pick<ToolCall, "startedAt" | "finishedAt">, now: number) =>
  (call.finishedAt ?? now) - call.startedAt

/** Statuses in which a session is being run (by the runner or an MCP client), so Stop has something to stop. */
export const stoppable: ReadonlySet<SessionStatus> = new Set(["running", "blocked"])

export interface SessionFilter {
  readonly status: SessionStatus | null
  readonly projectID: ProjectId | null
}

export const noSessionFilter: SessionFilter = { status: null, projectID: null }

/** The sessions passing `filter`, the most recently active first. */
export function filterSessions(
  ids: ReadonlyArray<SessionId>,
  byId: Readonly<Record<string, Session>>,
  filter: SessionFilter,
): ReadonlyArray<SessionId> {
  return ids
    .filter((id) => {
      const session = byId[id]
      return (
        session !== undefined &&
        (filter.status === null || session.status === filter.status) &&
        (filter.projectID === null || session.projectId === filter.projectID)
      )
    })
    .sort((a, b) => byId[b]!.updatedAt - byId[a]!.updatedAt || (a < b ? 1 : -1))
}

const counts = new WeakMap<ReadonlyArray<string>, ReadonlyMap<string, number>>()

/**
 * Pending items (asks and questions) per session, from the inbox's ids. Cached per ids array: an
 * item's session never changes, so the same array always gives the same counts.
 */
export function pendingBySession(
  ids: ReadonlyArray<string>,
  byId: Readonly<Record<string, { readonly sessionID: string }>>,
): ReadonlyMap<string, number> {
  const cached = counts.get(ids)
  if (cached) return cached
  const result = new Map<string, number>()
  for (const id of ids) {
    const item = byId[id]
    if (item) result.set(item.sessionID, (result.get(item.sessionID) ?? 0) + 1)
  }
  counts.set(ids, result)
  return result
}
