import { isAbsolute } from "node:path"
import { rgPath } from "@vscode/ripgrep"
import { Effect, Option, Schema } from "effect"
import { run } from "./process"

// ripgrep for glob and grep. Everything the model supplies is data, never a flag: patterns follow
// `-e`, globs are `--glob=<value>` single arguments, search paths follow `--`, and `--no-config`
// keeps RIPGREP_CONFIG_PATH from adding flags (such as `--pre`, which runs a program per file).
// Symbolic links are never followed while walking; the only path handed to rg is a canonical one
// the tool resolved and approved, so a link inside the Location cannot lead the search outside.

/** The binary; in a packaged app it lives outside the asar archive. */
export const binary = rgPath.replace(/\bapp\.asar([\\/])/u, "app.asar.unpacked$1")

/** Longer matching lines are cut to this many characters (a producer limit, like bash's capture). */
export const MAX_LINE_LENGTH = 2_000
/** Bytes of rg's own diagnostics kept for the failure. */
const MAX_STDERR_BYTES = 8 * 1024

/** ripgrep failed (bad glob or regex, unusable path, unexpected output). */
export class SearchError extends Schema.TaggedError<SearchError>()("Ripgrep.SearchError", {
  reason: Schema.String,
}) {
  override get message() {
    return `ripgrep failed: ${this.reason}`
  }
}

/** Flags common to every search: no config file, no link following, hidden files, path order. */
const BASE = ["--no-config", "--no-follow", "--hidden", "--sort=path"] as const
/** Last among the globs, since a later glob wins: a user glob cannot bring `.git` back. */
const NO_GIT = "--glob=!**/.git/**"

function requireAbsolute(path: string): string {
  if (!isAbsolute(path)) throw new TypeError(`ripgrep search paths must be absolute: ${path}`)
  return path
}

export interface FilesQuery {
  /** Canonical absolute directory to list; globs match paths relative to it (use it as the cwd). */
  readonly root: string
  readonly glob: string
}

/** `rg --files`: NUL-terminated paths, so names holding newlines or colons parse exactly. */
export function filesArgs(query: FilesQuery): ReadonlyArray<string> {
  return [...BASE, "--files", "--null", `--glob=${query.glob}`, NO_GIT, "--", requireAbsolute(query.root)]
}

export interface GrepQuery {
  /** Canonical absolute directory or file to search. */
  readonly path: string
  readonly pattern: string
  /** File glob restricting which files are searched. */
  readonly include?: string | undefined
}

/** `rg --json`: one JSON object per line; paths and lines arrive as JSON strings. */
export function grepArgs(query: GrepQuery): ReadonlyArray<string> {
  return [
    ...BASE,
    "--json",
    ...(query.include !== undefined ? [`--glob=${query.include}`] : []),
    NO_GIT,
    "-e",
    query.pattern,
    "--",
    requireAbsolute(query.path),
  ]
}

/** An environment without RIPGREP_CONFIG_PATH (`--no-config` already ignores it). */
function environment(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  delete env.RIPGREP_CONFIG_PATH
  return env
}

/** Splits a byte stream on one separator byte; a record may span chunks. */
export class Splitter {
  private pending: Buffer[] = []

  constructor(private readonly separator: number) {}

  /** The complete records in `chunk` (with whatever earlier chunks left over). */
  push(chunk: Buffer): Buffer[] {
    const records: Buffer[] = []
    let start = 0
    for (let index = chunk.indexOf(this.separator); index !== -1; index = chunk.indexOf(this.separator, start)) {
      const piece = chunk.subarray(start, index)
      records.push(this.pending.length > 0 ? Buffer.concat([...this.pending, piece]) : Buffer.from(piece))
      this.pending = []
      start = index + 1
    }
    if (start < chunk.length) this.pending.push(Buffer.from(chunk.subarray(start)))
    return records
  }

  /** What is left after the last separator (rg ends every record, so normally nothing). */
  rest(): Buffer | undefined {
    return this.pending.length > 0 ? Buffer.concat(this.pending) : undefined
  }
}

/** A JSON string or, for bytes that are not UTF-8, base64 (`--json` data objects). */
const Data = Schema.Union([Schema.Struct({ text: Schema.String }), Schema.Struct({ bytes: Schema.String })])

const MatchMessage = Schema.Struct({
  type: Schema.Literal("match"),
  data: Schema.Struct({
    path: Data,
    lines: Data,
    line_number: Schema.Number,
  }),
})

const Message = Schema.Struct({ type: Schema.String })

const decodeMessage = Schema.decodeUnknownOption(Schema.fromJsonString(Message))
const decodeMatch = Schema.decodeUnknownOption(Schema.fromJsonString(MatchMessage))

const textOf = (data: typeof Data.Type) =>
  "text" in data ? data.text : Buffer.from(data.bytes, "base64").toString("utf8")

export interface Match {
  /** The path as rg printed it: absolute, since only absolute paths are searched. */
  readonly path: string
  readonly line: number
  /** The matching line without its line ending, cut to {@link MAX_LINE_LENGTH} characters. */
  readonly text: string
}

/**
 * One `--json` line: a match, `undefined` for the other message types (begin, end, summary,
 * context), or `"invalid"` when the line is not what rg documents.
 */
export function parseJsonLine(line: string): Match | undefined | "invalid" {
  const message = decodeMessage(line)
  if (Option.isNone(message)) return "invalid"
  if (message.value.type !== "match") return undefined
  const match = decodeMatch(line)
  if (Option.isNone(match)) return "invalid"
  const text = textOf(match.value.data.lines).replace(/\r?\n$/u, "")
  return {
    path: textOf(match.value.data.path),
    line: match.value.data.line_number,
    text: text.length > MAX_LINE_LENGTH ? `${text.slice(0, MAX_LINE_LENGTH)}...` : text,
  }
}

interface Collect<A> {
  readonly cwd: string
  readonly args: ReadonlyArray<string>
  readonly separator: number
  /** A record's item, `undefined` to skip it, or `"invalid"` when rg's output is not understood. */
  readonly parse: (record: string) => A | undefined | "invalid"
  readonly limit: number | undefined
}

/**
 * Runs rg and collects parsed records as they stream in, stopping rg once `limit` is reached.
 * Exit 1 means "nothing found". Exit 2 with results means some files could not be read (the
 * results stand); exit 2 without results, or any other failure, is a {@link SearchError}.
 */
function collect<A>(input: Collect<A>): Effect.Effect<ReadonlyArray<A>, SearchError> {
  return Effect.gen(function* () {
    const limit = input.limit ?? Number.POSITIVE_INFINITY
    const splitter = new Splitter(input.separator)
    const items: A[] = []
    let invalid = false
    const result = yield* run({
      file: binary,
      args: input.args,
      cwd: input.cwd,
      env: environment(),
      maxBytes: { stdout: 0, stderr: MAX_STDERR_BYTES },
      onStdout: (chunk) => {
        for (const record of splitter.push(chunk)) {
          if (items.length >= limit) break
          const parsed = input.parse(record.toString("utf8"))
          if (parsed === "invalid") invalid = true
          else if (parsed !== undefined) items.push(parsed)
        }
        return items.length >= limit || invalid
      },
    }).pipe(Effect.mapError((error) => new SearchError({ reason: error.message })))
    if (invalid) return yield* new SearchError({ reason: "unexpected output" })
    if (result.stopped) return items
    const rest = splitter.rest()
    if (rest !== undefined && items.length < limit) {
      const parsed = input.parse(rest.toString("utf8"))
      if (parsed === "invalid") return yield* new SearchError({ reason: "unexpected output" })
      if (parsed !== undefined) items.push(parsed)
    }
    if (result.exitCode === 0 || result.exitCode === 1) return items
    if (result.exitCode === 2 && items.length > 0) return items
    return yield* new SearchError({
      reason: result.stderr.trim() || `exit ${result.exitCode ?? result.signal ?? "unknown"}`,
    })
  })
}

/** Files under `root` matching `glob`, as absolute paths in path order; at most `limit`. */
export const listFiles = (input: FilesQuery & { readonly limit?: number | undefined }) =>
  collect<string>({
    cwd: input.root,
    args: filesArgs(input),
    separator: 0,
    parse: (record) => record,
    limit: input.limit,
  })

/** Matching lines under `path` (a directory, or one file), in path order; at most `limit`. */
export const searchLines = (input: GrepQuery & { readonly cwd: string; readonly limit?: number | undefined }) =>
  collect<Match>({
    cwd: input.cwd,
    args: grepArgs(input),
    separator: 0x0a,
    parse: parseJsonLine,
    limit: input.limit,
  })
