import { realpathSync, statSync } from "node:fs"
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path"
import { Effect, Schema } from "effect"
import { Location } from "@core/location/Location"
import { LocationMutation } from "@core/location/LocationMutation"
import { ToolOutputStore } from "@core/output/ToolOutputStore"
import { PermissionV2 } from "@core/permission/PermissionV2"
import type { Sessions } from "@core/session/Sessions"
import { Tool } from "@core/tool/Tool"
import { explainedFailure } from "./support/failure"
import { assertAction, assertExternal } from "./support/permission"
import { searchLines, type SearchError } from "./support/ripgrep"

export * as GrepTool from "./grep"

// SPEC-CORE E.7. Searches file contents with `rg --json` inside the Location. The one path outside
// it that may be searched is a managed tool-output file (`<data dir>/tool-output/tool_*`), so the
// model can search the full text behind a truncated result; it goes through external_directory
// like any outside path (the built-in agents allow that directory). Any other outside path is
// refused before anything is asked.

export const name = "grep"

export const NO_FILES = "No files found"

const description = [
  "Searches file contents by regular expression (ripgrep syntax) inside the active Location.",
  "`path` narrows the search to a directory or a single file of the Location (relative to it); it may",
  "also be the absolute path of a managed tool-output file (`<data dir>/tool-output/tool_*`), where the",
  "full text of a truncated tool result is kept.",
  "`include` restricts the searched files by glob (for example `*.js` or `*.{ts,tsx}`); `limit` bounds the",
  "number of matches. Hidden files are searched; `.git` and git-ignored files are not, and symbolic links",
  "are not followed. Returns matching lines grouped by file (absolute paths, 1-based line numbers).",
].join(" ")

export const Input = Schema.Struct({
  pattern: Schema.String.annotate({ description: "Regular expression to search for in file contents" }),
  path: Schema.optional(
    Schema.String.annotate({
      description:
        "Directory or file to search, relative to the Location (default: the Location), or the absolute path of a managed tool-output file",
    }),
  ),
  include: Schema.optional(
    Schema.String.annotate({ description: 'File glob to include in the search (for example "*.js" or "*.{ts,tsx}")' }),
  ),
  limit: Schema.optional(
    Schema.Int.check(Schema.isGreaterThan(0)).annotate({ description: "Maximum number of matches to return" }),
  ),
})
export type Input = typeof Input.Type

export const Match = Schema.Struct({
  /** Relative to the Location with `/`; absolute for a managed tool-output file. */
  path: Schema.String,
  /** 1-based line number. */
  line: Schema.Number,
  /** The matching line (without its line ending; very long lines are cut). */
  text: Schema.String,
})
export type Match = typeof Match.Type

export const Output = Schema.Array(Match)
export type Output = typeof Output.Type

/** `Found <n> matches`, then each file's absolute path and its `  Line <n>: <text>` lines. */
export function modelText(output: Output, directory: string): string {
  if (output.length === 0) return NO_FILES
  const lines = [`Found ${output.length} matches`]
  let current: string | undefined
  for (const match of output) {
    if (match.path !== current) {
      if (current !== undefined) lines.push("")
      current = match.path
      lines.push(`${isAbsolute(match.path) ? match.path : join(directory, match.path)}:`)
    }
    lines.push(`  Line ${match.line}: ${match.text}`)
  }
  return lines.join("\n")
}

const slashes = (path: string) => (sep === "/" ? path : path.split(sep).join("/"))

type Kind = "directory" | "file" | "other" | "missing"

function kindOf(path: string): Kind {
  try {
    const stat = statSync(path)
    return stat.isDirectory() ? "directory" : stat.isFile() ? "file" : "other"
  } catch {
    return "missing"
  }
}

function realDirectory(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

type Failure =
  | Tool.ToolFailure
  | LocationMutation.PathError
  | PermissionV2.BlockedError
  | PermissionV2.CorrectedError
  | Sessions.NotFoundError
  | SearchError

const toFailure = (error: Failure, input: Input) => explainedFailure(error, `Unable to grep for ${input.pattern}`)

export const make = Effect.gen(function* () {
  const permission = yield* PermissionV2.Service
  const mutation = yield* LocationMutation.Service
  const location = yield* Location.Service
  const outputs = yield* ToolOutputStore.Service

  /** A `tool_*` file directly in the managed directory (canonical paths on both sides). */
  const isManagedOutput = (canonical: string) => {
    const managed = realDirectory(outputs.directory)
    return (
      managed !== undefined &&
      dirname(canonical) === managed &&
      basename(canonical).startsWith(ToolOutputStore.FILE_PREFIX) &&
      kindOf(canonical) === "file"
    )
  }

  /** The search target: inside the Location, or a managed tool-output file; anything else is refused. */
  const resolveTarget = Effect.fn("GrepTool.resolveTarget")(function* (path: string) {
    const target = yield* mutation.resolve({ path, kind: "directory" })
    if (target.externalDirectory && !isManagedOutput(target.canonical))
      return yield* new Tool.ToolFailure({
        message: `Search path must be inside the location or a managed tool-output file: ${path}`,
      })
    return target
  })

  const execute = Effect.fn("GrepTool.execute")(
    function* (input: Input, context: Tool.Context) {
      const requested = input.path ?? "."
      const target = yield* resolveTarget(requested)
      yield* assertExternal(permission, context, target)
      yield* assertAction(permission, context, {
        action: name,
        resources: [input.pattern],
        save: ["*"],
        metadata: {
          root: ".",
          ...(input.path !== undefined ? { path: input.path } : {}),
          ...(input.include !== undefined ? { include: input.include } : {}),
          ...(input.limit !== undefined ? { limit: input.limit } : {}),
        },
      })
      // Look again after approval: a path swapped for a link meanwhile must not be searched.
      const current = yield* resolveTarget(requested)
      if (current.canonical !== target.canonical)
        return yield* new Tool.ToolFailure({ message: `Unable to grep for ${input.pattern}` })
      const kind = kindOf(current.canonical)
      if (kind === "missing") return yield* new Tool.ToolFailure({ message: `Search path not found: ${requested}` })
      // A FIFO or device would block the search or read something that is not a file.
      if (kind === "other") return yield* new Tool.ToolFailure({ message: `Unable to grep for ${input.pattern}` })
      const matches = yield* searchLines({
        cwd: kind === "directory" ? current.canonical : dirname(current.canonical),
        path: current.canonical,
        pattern: input.pattern,
        include: input.include,
        limit: input.limit,
      })
      return matches.map((match): Match => ({
        path: current.externalDirectory ? match.path : slashes(relative(location.directory, match.path)),
        line: match.line,
        text: match.text,
      }))
    },
    (effect, input) => Effect.mapError(effect, (error) => toFailure(error, input)),
  )

  return Tool.make({
    description,
    input: Input,
    output: Output,
    execute,
    toModelOutput: ({ output }) => [{ type: "text", text: modelText(output, location.directory) }],
  })
})
