import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { parse, printParseErrorCode, stripComments, type ParseError } from "jsonc-parser"
import { Context, Effect, Layer, Schema } from "effect"
import { issueLines } from "../schema/issues"
import { DataDir } from "./DataDir"

export * as Config from "./Config"

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

export const Rule = Schema.Struct({
  action: Schema.String,
  resource: Schema.String,
  effect: Schema.Literals(["allow", "deny", "ask"]),
})
export type Rule = typeof Rule.Type

/** An agent in config.jsonc: either its ordered rules, or an object with rules and settings. */
export const AgentConfig = Schema.Union([
  Schema.Array(Rule),
  Schema.Struct({
    description: Schema.optional(Schema.String),
    mode: Schema.optional(Schema.Literals(["primary", "subagent"])),
    /** Maximum provider turns; on the last one tools are disabled. */
    steps: Schema.optional(PositiveInt),
    /** Rules appended after the agent's built-in rules (or the whole list for a new agent). */
    permission: Schema.optional(Schema.Array(Rule)),
  }),
])
export type AgentConfig = typeof AgentConfig.Type

export const ProviderConfig = Schema.Struct({
  type: Schema.Literals(["openai-compatible", "scripted"]),
  base_url: Schema.optional(Schema.String),
  /** A literal key; prefer `api_key_env` so the key stays out of the file. */
  api_key: Schema.optional(Schema.String),
  api_key_env: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  stream: Schema.optional(Schema.Boolean),
  script: Schema.optional(Schema.String),
})
export type ProviderConfig = typeof ProviderConfig.Type

export const OpencodeConnectorConfig = Schema.Struct({
  url: Schema.String,
  name: Schema.optional(Schema.String),
  username: Schema.optional(Schema.String),
  password: Schema.optional(Schema.String),
  password_env: Schema.optional(Schema.String),
})

/** Every key of config.jsonc. All optional; defaults are documented in README.md. */
export const GatehouseConfig = Schema.Struct({
  $schema: Schema.optional(Schema.String),
  agents: Schema.optional(Schema.Record(Schema.String, AgentConfig)),
  tool_output: Schema.optional(
    Schema.Struct({ max_lines: Schema.optional(PositiveInt), max_bytes: Schema.optional(PositiveInt) }),
  ),
  shell: Schema.optional(Schema.String),
  attachments: Schema.optional(
    Schema.Struct({
      image: Schema.optional(
        Schema.Struct({
          auto_resize: Schema.optional(Schema.Boolean),
          max_width: Schema.optional(PositiveInt),
          max_height: Schema.optional(PositiveInt),
          max_base64_bytes: Schema.optional(PositiveInt),
        }),
      ),
    }),
  ),
  providers: Schema.optional(Schema.Record(Schema.String, ProviderConfig)),
  server: Schema.optional(
    Schema.Struct({
      /** Loopback only: the servers never listen on another interface. */
      host: Schema.optional(Schema.Literals(["127.0.0.1"])),
      port: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 65535 }))),
    }),
  ),
  connectors: Schema.optional(Schema.Struct({ opencode: Schema.optional(Schema.Array(OpencodeConnectorConfig)) })),
})
export type GatehouseConfig = typeof GatehouseConfig.Type

/** config.jsonc cannot be used; start-up stops with this message rather than run on defaults. */
export class InvalidError extends Schema.TaggedError<InvalidError>()("Config.InvalidError", {
  file: Schema.String,
  /** Dotted key path (`tool_output.max_lines`), or `line 3, column 7` for a syntax error. */
  at: Schema.String,
  reason: Schema.String,
}) {
  override get message() {
    return `Invalid configuration in ${this.file} at ${this.at}: ${this.reason}`
  }
}

export interface Interface {
  /** The file that was read (it may not exist; then every default applies). */
  readonly file: string
  readonly config: GatehouseConfig
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/config/Config") {}

const decode = Schema.decodeUnknownExit(GatehouseConfig, { onExcessProperty: "error", errors: "all" })

/** Parses JSONC text and decodes it; the first problem becomes an {@link InvalidError}. */
export function parseText(file: string, text: string): GatehouseConfig {
  // A file holding only comments (e.g. a commented-out template) means "all defaults".
  if (stripComments(text).trim() === "") return {}
  const errors: ParseError[] = []
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false })
  if (errors.length > 0) {
    const first = errors[0]!
    const { line, column } = position(text, first.offset)
    throw new InvalidError({ file, at: `line ${line}, column ${column}`, reason: printParseErrorCode(first.error) })
  }
  const result = decode(value)
  if (result._tag === "Success") return result.value
  const error = result.cause.reasons.find((reason) => reason._tag === "Fail")
  const issue = error && "error" in error ? issueLines(error.error as Schema.SchemaError)[0] : undefined
  const got = issue ? valueAt(value, issue.segments) : undefined
  const reason = (issue?.message ?? "invalid").replace("excess property", "unknown key")
  throw new InvalidError({
    file,
    at: issue?.path || "(root)",
    reason: got === undefined || reason.includes("unknown key") ? reason : `${reason}, got ${preview(got)}`,
  })
}

function valueAt(value: unknown, segments: ReadonlyArray<PropertyKey>): unknown {
  let current = value
  for (const segment of segments) {
    if (current === null || typeof current !== "object") return undefined
    current = (current as Record<PropertyKey, unknown>)[segment]
  }
  return current
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

function position(text: string, offset: number) {
  const before = text.slice(0, offset).split("\n")
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 }
}

/** Reads the file if it exists (a missing file means all defaults). */
export function load(file: string): GatehouseConfig {
  if (!existsSync(file)) return {}
  return parseText(file, readFileSync(file, "utf8"))
}

/** `GATEHOUSE_CONFIG` when set, else `config.jsonc` in the data directory. */
export function resolveFile(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.GATEHOUSE_CONFIG || join(dataDir, "config.jsonc")
}

export const layer = (env: NodeJS.ProcessEnv = process.env) =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const dataDir = yield* DataDir.Service
      const file = resolveFile(dataDir.path, env)
      const config = yield* Effect.try({
        try: () => load(file),
        catch: (error) =>
          error instanceof InvalidError ? error : new InvalidError({ file, at: "(file)", reason: String(error) }),
      })
      return Service.of({ file, config })
    }),
  )

/** A fixed configuration, for tests. */
export const layerValue = (config: GatehouseConfig, file = "(test)") =>
  Layer.succeed(Service, Service.of({ file, config }))
