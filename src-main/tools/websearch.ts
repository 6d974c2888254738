import { Effect, Schema, type Duration } from "effect"
import type { SessionId } from "@contract/ids"
import { AppInfo } from "@core/config/AppInfo"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Tool } from "@core/tool/Tool"
import { callTool } from "./support/mcpSearch"
import { assertAction } from "./support/permission"

export * as WebSearchTool from "./websearch"

export const name = "websearch"
export const NO_RESULTS = "No search results found. Please try a different query."
export const EXA_URL = "https://mcp.exa.ai/mcp"
export const PARALLEL_URL = "https://search.parallel.ai/mcp"
export const EXA_TOOL = "web_search_exa"
export const PARALLEL_TOOL = "web_search"
export const DEFAULT_NUM_RESULTS = 8
export const MAX_NUM_RESULTS = 20
export const MAX_CONTEXT_CHARACTERS = 50_000

const description =
  () => `Searches the web and returns the most relevant results as text. Use it for current information beyond your knowledge cutoff.

This is a local tool backed by an MCP search service (Exa or Parallel), separate from any web search a model provider offers.

Optional controls: "numResults" (default ${DEFAULT_NUM_RESULTS}, at most ${MAX_NUM_RESULTS}), "livecrawl" ('fallback' or 'preferred'), "type" ('auto', 'fast' or 'deep') and "contextMaxCharacters" (at most ${MAX_CONTEXT_CHARACTERS}).

The current year is ${new Date().getFullYear()}. Use it when searching for recent information or current events.`

const Count = (maximum: number) => Schema.Int.check(Schema.isBetween({ minimum: 1, maximum }))

export const Input = Schema.Struct({
  query: Schema.String.annotate({ description: "The web search query" }),
  numResults: Schema.optional(
    Count(MAX_NUM_RESULTS).annotate({
      description: `Number of search results to return (default: ${DEFAULT_NUM_RESULTS}, maximum: ${MAX_NUM_RESULTS})`,
    }),
  ),
  livecrawl: Schema.optional(
    Schema.Literals(["fallback", "preferred"]).annotate({
      description:
        "Live crawl mode - 'fallback': live crawl when the cache has nothing (default), 'preferred': live crawl first",
    }),
  ),
  type: Schema.optional(
    Schema.Literals(["auto", "fast", "deep"]).annotate({
      description: "Search type - 'auto': balanced (default), 'fast': quick results, 'deep': comprehensive",
    }),
  ),
  contextMaxCharacters: Schema.optional(
    Count(MAX_CONTEXT_CHARACTERS).annotate({
      description: `Maximum characters of context for the model (maximum: ${MAX_CONTEXT_CHARACTERS})`,
    }),
  ),
})
export type Input = typeof Input.Type

export const Provider = Schema.Literals(["exa", "parallel"])
export type Provider = typeof Provider.Type

export const Output = Schema.Struct({ provider: Provider, text: Schema.String, truncated: Schema.Boolean })
export type Output = typeof Output.Type

/** Where the search goes, read once from the environment when the tool is made. */
export interface Settings {
  /** `OPENCODE_WEBSEARCH_PROVIDER`: always this provider. */
  readonly provider: Provider | undefined
  /** `OPENCODE_ENABLE_PARALLEL` / `OPENCODE_EXPERIMENTAL_PARALLEL`. */
  readonly enableParallel: boolean
  /** `OPENCODE_EXPERIMENTAL` / `OPENCODE_ENABLE_EXA` / `OPENCODE_EXPERIMENTAL_EXA`. */
  readonly enableExa: boolean
  readonly exaApiKey: string | undefined
  readonly parallelApiKey: string | undefined
  /** `GATEHOUSE_EXA_URL`, default {@link EXA_URL}. */
  readonly exaUrl: string
  /** `GATEHOUSE_PARALLEL_URL`, default {@link PARALLEL_URL}. */
  readonly parallelUrl: string
}

type Env = Readonly<Record<string, string | undefined>>

/** `1` or `true` (any case), as OpenCode reads its flags. */
const truthy = (env: Env, key: string) => {
  const value = env[key]?.toLowerCase()
  return value === "true" || value === "1"
}

export function settingsFrom(env: Env): Settings {
  const provider = env.OPENCODE_WEBSEARCH_PROVIDER
  return {
    provider: provider === "exa" || provider === "parallel" ? provider : undefined,
    enableParallel: truthy(env, "OPENCODE_ENABLE_PARALLEL") || truthy(env, "OPENCODE_EXPERIMENTAL_PARALLEL"),
    enableExa:
      truthy(env, "OPENCODE_EXPERIMENTAL") ||
      truthy(env, "OPENCODE_ENABLE_EXA") ||
      truthy(env, "OPENCODE_EXPERIMENTAL_EXA"),
    exaApiKey: env.EXA_API_KEY?.trim() || undefined,
    parallelApiKey: env.PARALLEL_API_KEY?.trim() || undefined,
    exaUrl: env.GATEHOUSE_EXA_URL || EXA_URL,
    parallelUrl: env.GATEHOUSE_PARALLEL_URL || PARALLEL_URL,
  }
}

/** 32-bit FNV-1a of the UTF-16 code units: OpenCode's session checksum. */
export function checksum(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/** The override, else a flag, else a stable choice per session: even checksum → exa, odd → parallel. */
export function selectProvider(sessionID: SessionId | string, settings: Settings): Provider {
  if (settings.provider) return settings.provider
  if (settings.enableParallel) return "parallel"
  if (settings.enableExa) return "exa"
  return checksum(sessionID) % 2 === 0 ? "exa" : "parallel"
}

/** The provider cannot be used as configured (its key is missing); checked before anything is asked. */
export class MissingKeyError extends Schema.TaggedError<MissingKeyError>()("WebSearchTool.MissingKeyError", {
  provider: Provider,
  variable: Schema.String,
}) {
  override get message() {
    return `${this.variable} is not set; the ${this.provider} web search provider needs it`
  }
}

export interface Options {
  /** Where settings and keys are read, once, when the tool is made; default `process.env`. */
  readonly env?: Env
  /** The whole provider exchange; default 25 seconds (tests shorten it). */
  readonly timeout?: Duration.Input
}

/**
 * `websearch` (SPEC-CORE E.9): picks the provider, checks its key, asserts `websearch` with the
 * query, then calls the provider's MCP endpoint. Every failure reads
 * `Unable to search the web for <query>: <reason>`.
 */
export const makeWith = (options: Options = {}) =>
  Effect.gen(function* () {
    const permission = yield* PermissionV2.Service
    const app = yield* AppInfo.Service
    const settings = settingsFrom(options.env ?? process.env)
    const userAgent = `gatehouse/${app.version}`

    const search = (provider: Provider, input: Input, sessionID: SessionId) => {
      if (provider === "exa") {
        const url = new URL(settings.exaUrl)
        url.searchParams.set("exaApiKey", settings.exaApiKey ?? "")
        return callTool({
          url: url.href,
          tool: EXA_TOOL,
          arguments: {
            query: input.query,
            type: input.type ?? "auto",
            numResults: input.numResults ?? DEFAULT_NUM_RESULTS,
            livecrawl: input.livecrawl ?? "fallback",
            ...(input.contextMaxCharacters !== undefined ? { contextMaxCharacters: input.contextMaxCharacters } : {}),
          },
          ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
        })
      }
      return callTool({
        url: settings.parallelUrl,
        tool: PARALLEL_TOOL,
        arguments: { objective: input.query, search_queries: [input.query], session_id: sessionID },
        headers: { "User-Agent": userAgent, Authorization: `Bearer ${settings.parallelApiKey ?? ""}` },
        ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
      })
    }

    return Tool.make({
      description: description(),
      input: Input,
      output: Output,
      toModelOutput: ({ output }) => [{ type: "text", text: output.text }],
      execute: (input, context) => {
        const provider = selectProvider(context.sessionID, settings)
        return Effect.gen(function* () {
          if (provider === "exa" && !settings.exaApiKey)
            return yield* new MissingKeyError({ provider, variable: "EXA_API_KEY" })
          if (provider === "parallel" && !settings.parallelApiKey)
            return yield* new MissingKeyError({ provider, variable: "PARALLEL_API_KEY" })
          yield* assertAction(permission, context, {
            action: name,
            resources: [input.query],
            save: ["*"],
            metadata: { ...input, provider },
          })
          const text = yield* search(provider, input, context.sessionID)
          return { provider, text: text ?? NO_RESULTS, truncated: false }
        }).pipe(
          // Typed failures only: a plain decline stays a defect (PermissionV2's tunnel) and stops the run.
          Effect.mapError(
            (error) =>
              new Tool.ToolFailure({ message: `Unable to search the web for ${input.query}: ${error.message}`, error }),
          ),
        )
      },
    })
  })

/** The tool as the built-ins register it: settings from `process.env`. */
export const make = makeWith()
