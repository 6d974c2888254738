import { STATUS_CODES } from "node:http"
import { Duration, Effect, Result } from "effect"
import type { Config } from "../../config/Config"
import { newId } from "../../id/Identifier"
import { chatCompletionsUrl, decodeCompletion, errorBodySummary, requestBody, StreamAssembler } from "./openai"
import type { Problem } from "./openai"
import { Provider } from "./Provider"
import { SseDecoder, type SseEvent } from "./sse"

export * as OpenAICompatible from "./OpenAICompatible"

/**
 * Node's fetch gives up after 300 s without response headers or body bytes; a longer limit here
 * would never be reached, so this is the default and the ceiling in practice.
 */
export const DEFAULT_TIMEOUT = Duration.minutes(5)
/** A response body larger than this is refused rather than held in memory. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024
/** Bytes of an error response read for its message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024

export interface Options {
  /** The provider's name in messages (its key under `providers`); default `openai-compatible`. */
  readonly name?: string
  /** Where `api_key_env` is looked up, once, when the provider is made; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** The longest silence accepted from the server: before the headers, and between body chunks. */
  readonly timeout?: Duration.Input
}

/** The key the config names: `api_key`, or `api_key_env` read now; undefined when neither is set. */
export function apiKey(
  name: string,
  config: Config.ProviderConfig,
  env: Readonly<Record<string, string | undefined>>,
): Result.Result<string | undefined, Provider.ConfigError> {
  const fail = (reason: string) => Result.fail(new Provider.ConfigError({ provider: name, reason }))
  if (config.api_key !== undefined && config.api_key_env !== undefined)
    return fail("set api_key or api_key_env, not both")
  if (config.api_key_env === undefined) return Result.succeed(config.api_key || undefined)
  const value = env[config.api_key_env]
  if (value === undefined) return fail(`the environment variable ${config.api_key_env} (api_key_env) is not set`)
  if (value.trim() === "") return fail(`the environment variable ${config.api_key_env} (api_key_env) is empty`)
  return Result.succeed(value.trim())
}

/**
 * A provider for any server speaking OpenAI chat completions. Everything is checked here, once:
 * `base_url` (http or https) and `model` are required, and the key is read from the environment
 * now, so a missing variable fails the start of a session rather than its first turn.
 */
export const make = Effect.fn("OpenAICompatible.make")(function* (
  config: Config.ProviderConfig,
  options: Options = {},
) {
  const name = options.name ?? config.type
  const fail = (reason: string) => new Provider.ConfigError({ provider: name, reason })
  if (!config.base_url) return yield* fail("base_url is required for an openai-compatible provider")
  const base = URL.canParse(config.base_url) ? new URL(config.base_url) : undefined
  if (base === undefined || (base.protocol !== "http:" && base.protocol !== "https:"))
    return yield* fail(`base_url must be an http or https URL, got ${config.base_url}`)
  if (!config.model) return yield* fail("model is required for an openai-compatible provider")
  const model = config.model
  const key = apiKey(name, config, options.env ?? process.env)
  if (Result.isFailure(key)) return yield* key.failure
  const url = chatCompletionsUrl(config.base_url)
  const stream = config.stream ?? false
  const timeout = Duration.fromInputUnsafe(options.timeout ?? DEFAULT_TIMEOUT)
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: stream ? "text/event-stream" : "application/json",
  }
  if (key.success !== undefined) headers.authorization = `Bearer ${key.success}`

  const error = (kind: Provider.ErrorKind, detail: string, extra: { status?: number; cause?: unknown } = {}) =>
    new Provider.ProviderError({
      provider: name,
      kind,
      message: `openai-compatible request to ${url} failed: ${detail}`,
      ...extra,
    })
  const fromProblem = (problem: Problem) => error(problem.kind, problem.detail)
  const fallbackId = () => newId.toolCall() as string

  const turn = Effect.fn("OpenAICompatible.turn")(function* (request: Provider.Request) {
    const body = JSON.stringify(requestBody(model, request, stream))
    // The controller lives exactly as long as the exchange: interruption or a timeout closes the
    // scope, which aborts the request and the body still being read.
    return yield* Effect.scoped(
      Effect.gen(function* () {
        const controller = yield* Effect.acquireRelease(
          Effect.sync(() => new AbortController()),
          (controller) => Effect.sync(() => controller.abort()),
        )
        const silent = <A>(effect: Effect.Effect<A, Provider.ProviderError>, detail: string) =>
          Effect.timeoutOrElse(effect, { duration: timeout, orElse: () => Effect.fail(error("network", detail)) })
        const response = yield* silent(
          Effect.tryPromise({
            try: () => fetch(url, { method: "POST", headers, body, signal: controller.signal }),
            catch: (cause) => error("network", describeNetworkFailure(cause), { cause }),
          }),
          `no response within ${Duration.format(timeout)}`,
        )
        const reader = response.body?.getReader()
        const read = silent(
          Effect.tryPromise({
            try: async (): Promise<ReadResult> => {
              const result = reader ? await reader.read() : undefined
              return result === undefined || result.done ? { done: true } : { done: false, value: result.value }
            },
            catch: (cause) => error("network", describeNetworkFailure(cause), { cause }),
          }),
          `the response stalled: no data for ${Duration.format(timeout)}`,
        )

        if (!response.ok) {
          const body = yield* readAll(read, MAX_ERROR_BODY_BYTES).pipe(Effect.orElseSucceed(() => ({ text: "" })))
          const status = `HTTP ${response.status} ${response.statusText || STATUS_CODES[response.status] || ""}`.trim()
          const summary = errorBodySummary(body.text)
          return yield* error("http", summary ? `${status}: ${summary}` : status, { status: response.status })
        }

        const type = response.headers.get("content-type") ?? ""
        const streamed = type.includes("text/event-stream") || (stream && !type.includes("json"))
        if (!streamed) {
          const body = yield* readAll(read, MAX_RESPONSE_BYTES)
          if (body.overflow) return yield* fromProblem(tooLarge)
          const decoded = decodeCompletion(body.text, fallbackId)
          return Result.isSuccess(decoded) ? decoded.success : yield* fromProblem(decoded.failure)
        }

        const assembled = yield* readStream(read)
        const turn = Result.flatMap(assembled, (assembler) => assembler.end(fallbackId))
        return Result.isSuccess(turn) ? turn.success : yield* fromProblem(turn.failure)
      }),
    )
  })

  return { name, turn } satisfies Provider.Interface
})

type ReadResult = { readonly done: true } | { readonly done: false; readonly value: Uint8Array }

/**
 * Feeds the SSE body to an assembler until `[DONE]` or the end of the body. Reading stops at
 * `[DONE]`: some servers keep the connection open after it.
 */
const readStream = (
  read: Effect.Effect<ReadResult, Provider.ProviderError>,
): Effect.Effect<Result.Result<StreamAssembler, Problem>, Provider.ProviderError> =>
  Effect.gen(function* () {
    const decoder = new SseDecoder()
    const assembler = new StreamAssembler()
    const feed = (events: ReadonlyArray<SseEvent>): Problem | undefined => {
      for (const event of events) {
        if (event.event === "error")
          return { kind: "http", detail: `the server reported an error in the stream: ${errorBodySummary(event.data)}` }
        const fed = assembler.push(event.data)
        if (Result.isFailure(fed)) return fed.failure
        if (assembler.isDone) return undefined
      }
      return undefined
    }
    let total = 0
    while (!assembler.isDone) {
      const chunk = yield* read
      const problem = chunk.done ? feed(decoder.end()) : feed(decoder.push(chunk.value))
      if (problem) return Result.fail(problem)
      if (chunk.done) break
      total += chunk.value.byteLength
      if (total > MAX_RESPONSE_BYTES) return Result.fail(tooLarge)
    }
    return Result.succeed(assembler)
  })

const tooLarge: Problem = { kind: "malformed", detail: "the response is larger than 64 MiB" }

/** Reads the body to its end, or its first `limit` bytes with `overflow` set, as UTF-8. */
const readAll = (
  read: Effect.Effect<ReadResult, Provider.ProviderError>,
  limit: number,
): Effect.Effect<{ readonly text: string; readonly overflow?: true }, Provider.ProviderError> =>
  Effect.gen(function* () {
    const parts: Array<Uint8Array> = []
    let total = 0
    while (true) {
      const chunk = yield* read
      if (chunk.done) return { text: Buffer.concat(parts).toString("utf8") }
      parts.push(chunk.value)
      total += chunk.value.byteLength
      if (total > limit) return { text: Buffer.concat(parts).subarray(0, limit).toString("utf8"), overflow: true }
    }
  })

const NETWORK_FAILURES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ECONNRESET: "the connection was reset",
  EPIPE: "the connection was closed",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_CONNECT_TIMEOUT: "the connection timed out",
  UND_ERR_HEADERS_TIMEOUT: "the server sent no response headers in time",
  UND_ERR_BODY_TIMEOUT: "the server stopped sending the response",
  UND_ERR_SOCKET: "the server closed the connection before the response was complete",
}

/** What a person reads for a fetch failure: its cause chain's error code, named, else its messages. */
export function describeNetworkFailure(cause: unknown): string {
  const messages: Array<string> = []
  let current: unknown = cause
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = "code" in current && typeof current.code === "string" ? current.code : undefined
    if (code !== undefined && NETWORK_FAILURES[code]) return `${NETWORK_FAILURES[code]} (${code})`
    if (code !== undefined && /CERT|SSL|TLS/.test(code)) return `TLS certificate problem (${code})`
    if ("message" in current && typeof current.message === "string" && current.message) messages.push(current.message)
    current = "cause" in current ? current.cause : undefined
  }
  return messages.length > 0 ? messages.join(": ") : String(cause)
}
