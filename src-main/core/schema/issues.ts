import { SchemaIssue } from "effect"
import type { Schema } from "effect"

export interface IssueLine {
  /** Dotted key path, e.g. `tool_output.max_lines` or `agents.build[0].effect`; empty for the root. */
  readonly path: string
  readonly segments: ReadonlyArray<PropertyKey>
  readonly message: string
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** Flattens a schema failure into one `{ path, message }` per problem, in a stable order. */
export function issueLines(error: Schema.SchemaError): ReadonlyArray<IssueLine> {
  return formatter(error.issue).issues.map((issue) => {
    const segments = (issue.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))
    return { path: formatPath(segments), segments, message: issue.message.replace(/ \| undefined$/, "") }
  })
}

/** `path: message` lines joined by `; `, the wording used by every boundary's "invalid input" error. */
export function describeIssues(error: Schema.SchemaError): string {
  return issueLines(error)
    .map((line) => (line.path ? `${line.path}: ${line.message}` : line.message))
    .join("; ")
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = ""
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`
    else if (typeof segment === "string" && /^[A-Za-z_$][\w$-]*$/.test(segment)) out += out ? `.${segment}` : segment
    else out += `[${JSON.stringify(String(segment))}]`
  }
  return out
}
