import { statSync } from "node:fs"
import { extname, join, relative, sep } from "node:path"
import { Effect, Schema } from "effect"
import { Location } from "@core/location/Location"
import { LocationMutation } from "@core/location/LocationMutation"
import { PermissionV2 } from "@core/permission/PermissionV2"
import type { Sessions } from "@core/session/Sessions"
import { Tool } from "@core/tool/Tool"
import { explainedFailure } from "./support/failure"
import { assertAction } from "./support/permission"
import { listFiles, type SearchError } from "./support/ripgrep"

export * as GlobTool from "./glob"

// SPEC-CORE E.6. Lists files with `rg --files` inside one directory of the Location. The search
// root goes through LocationMutation like every other path, but only a root inside the Location
// is accepted: an absolute path elsewhere is refused before anything is asked, so glob never
// becomes a way to list the rest of the disk. Results come in path order (rg `--sort=path`), so
// the same call gives the same answer and `limit` keeps the first entries of that order.

export const name = "glob"

export const NO_FILES = "No files found"

const description = [
  "Finds files by glob pattern inside the active Location (for example `**/*.ts` or `src/**/*.test.ts`).",
  "The pattern matches paths relative to the search directory; a pattern without `/` matches file names",
  "at any depth. `path` narrows the search to a directory of the Location (relative to it).",
  "Hidden files are included, `.git` and git-ignored files are not, and symbolic links are not followed.",
  "Returns one absolute path per line in path order; `limit` keeps the first entries.",
].join(" ")

export const Input = Schema.Struct({
  pattern: Schema.String.annotate({ description: "Glob pattern to match files against" }),
  path: Schema.optional(
    Schema.String.annotate({ description: "Directory to search, relative to the Location. Defaults to the Location." }),
  ),
  limit: Schema.optional(
    Schema.Int.check(Schema.isGreaterThan(0)).annotate({ description: "Maximum number of files to return" }),
  ),
})
export type Input = typeof Input.Type

export const Entry = Schema.Struct({
  /** Relative to the Location, with `/`. */
  path: Schema.String,
  type: Schema.Literal("file"),
  /** Guessed from the extension; `application/octet-stream` when unknown. */
  mime: Schema.String,
})
export type Entry = typeof Entry.Type

export const Output = Schema.Array(Entry)
export type Output = typeof Output.Type

const TEXT = "text/plain"
const MIME: Readonly<Record<string, string>> = {
  ".txt": TEXT,
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".html": "text/html",
  ".htm": "text/html",
  ".css": "text/css",
  ".csv": "text/csv",
  ".xml": "application/xml",
  ".json": "application/json",
  ".jsonc": "application/json",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".cjs": "text/javascript",
  ".jsx": "text/javascript",
  ".ts": "text/typescript",
  ".mts": "text/typescript",
  ".cts": "text/typescript",
  ".tsx": "text/typescript",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".toml": "application/toml",
  ".sh": "application/x-sh",
  ".py": "text/x-python",
  ".rs": "text/x-rust",
  ".go": "text/x-go",
  ".java": "text/x-java",
  ".c": "text/x-c",
  ".h": "text/x-c",
  ".cc": "text/x-c++",
  ".cpp": "text/x-c++",
  ".hpp": "text/x-c++",
  ".rb": "text/x-ruby",
  ".sql": "application/sql",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/vnd.microsoft.icon",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".tar": "application/x-tar",
  ".wasm": "application/wasm",
}

export const mimeOf = (path: string): string => MIME[extname(path).toLowerCase()] ?? "application/octet-stream"

export const modelText = (output: Output, directory: string): string =>
  output.length === 0 ? NO_FILES : output.map((entry) => join(directory, entry.path)).join("\n")

const slashes = (path: string) => (sep === "/" ? path : path.split(sep).join("/"))

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

type Failure =
  | Tool.ToolFailure
  | LocationMutation.PathError
  | PermissionV2.BlockedError
  | PermissionV2.CorrectedError
  | Sessions.NotFoundError
  | SearchError

const toFailure = (error: Failure, input: Input) =>
  explainedFailure(error, `Unable to find files matching ${input.pattern}`)

export const make = Effect.gen(function* () {
  const permission = yield* PermissionV2.Service
  const mutation = yield* LocationMutation.Service
  const location = yield* Location.Service

  /** The search directory, refused when it lies outside the Location. */
  const resolveRoot = Effect.fn("GlobTool.resolveRoot")(function* (path: string) {
    const target = yield* mutation.resolve({ path, kind: "directory" })
    if (target.externalDirectory)
      return yield* new Tool.ToolFailure({ message: `Search path must be inside the location: ${path}` })
    return target
  })

  const execute = Effect.fn("GlobTool.execute")(
    function* (input: Input, context: Tool.Context) {
      const requested = input.path ?? "."
      const target = yield* resolveRoot(requested)
      yield* assertAction(permission, context, {
        action: name,
        resources: [input.pattern],
        save: ["*"],
        metadata: {
          root: target.resource,
          ...(input.path !== undefined ? { path: input.path } : {}),
          ...(input.limit !== undefined ? { limit: input.limit } : {}),
        },
      })
      // Look again after approval: a directory swapped for a link meanwhile must not be searched.
      const current = yield* resolveRoot(requested)
      if (current.canonical !== target.canonical || !isDirectory(current.canonical))
        return yield* new Tool.ToolFailure({ message: `Unable to find files matching ${input.pattern}` })
      const files = yield* listFiles({ root: current.canonical, glob: input.pattern, limit: input.limit })
      return files.map((file): Entry => ({
        path: slashes(relative(location.directory, file)),
        type: "file",
        mime: mimeOf(file),
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
