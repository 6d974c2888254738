import { Duration, Effect, Schema } from "effect"
import { SseDecoder } from "@core/session/provider/sse"
import { announcedLength, BodyTooLargeError, readBounded } from "./httpBody"

// One MCP `tools/call` over HTTP, the way `websearch` reaches the Exa and Parallel search servers
// (SPEC-CORE E.9): a single JSON-RPC POST without an initialize handshake, answered either with a
// JSON body or with a `text/event-stream` whose `data:` events carry the JSON-RPC response.

export const MAX_RESPONSE_BYTES = 256 * 1024
export const TIMEOUT = Duration.seconds(25)

/** Why a call failed; every reason names the MCP tool (`web_search_exa request timed out`). */
export class CallError extends Schema.TaggedError<CallError>()("McpSearch.CallError", {
  tool: Schema.String,
  reason: Schema.String,
}) {
  override get message() {
    return this.reason
  }
}

export interface CallInput {
  readonly url: string
  /** The MCP tool to call (`web_search_exa`, `web_search`). */
  readonly tool: string
  readonly arguments: Readonly<Record<string, unknown>>
  readonly headers?: Readonly<Record<string, string>>
  /** The whole exchange, body included; default {@link TIMEOUT}. */
  readonly timeout?: Duration.Input
  /** Default {@link MAX_RESPONSE_BYTES}. */
  readonly maxBytes?: number
}

const TextItem = Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })
const Payload = Schema.Struct({
  result: Schema.optional(
    Schema.Struct({
      content: Schema.optional(Schema.Array(TextItem)),
      isError: Schema.optional(Schema.Boolean),
    }),
  ),
  error: Schema.optional(Schema.Struct({ message: Schema.String })),
})
const decodePayload = Schema.decodeUnknownExit(Schema.fromJsonString(Payload))

/** What one JSON-RPC message says: a text, nothing useful (e.g. a notification), or a failure. */
type Parsed = { readonly text: string | undefined } | { readonly failure: string }

function parsePayload(tool: string, raw: string): Parsed {
  const decoded = decodePayload(raw)
  if (decoded._tag === "Failure") return { failure: `${tool} returned an invalid response` }
  const payload = decoded.value
  if (payload.error) return { failure: `${tool} returned an error: ${payload.error.message}` }
  const texts = (payload.result?.content ?? []).flatMap((item) =>
    item.type === "text" && item.text ? [item.text] : [],
  )
  if (payload.result?.isError) return { failure: `${tool} failed: ${texts[0] ?? "no details"}` }
  return { text: texts[0] }
}

/**
 * The first non-empty text item of the response, or `undefined` when it has none. A JSON body is
 * one message; anything else is read as server-sent events, whose messages are tried in order.
 */
export function parseResponse(tool: string, body: string): Parsed {
  const trimmed = body.trim()
  if (trimmed === "") return { text: undefined }
  if (trimmed.startsWith("{")) return parsePayload(tool, trimmed)
  const decoder = new SseDecoder()
  const events = [...decoder.push(new TextEncoder().encode(body)), ...decoder.end()]
  for (const event of events) {
    if (!event.data.trim().startsWith("{")) continue
    const parsed = parsePayload(tool, event.data)
    if ("failure" in parsed || parsed.text !== undefined) return parsed
  }
  return { text: undefined }
}

class Refused extends Error {}

async function post(input: CallInput, maxBytes: number, signal: AbortSignal): Promise<string> {
  const response = await fetch(input.url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...input.headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: input.tool, arguments: input.arguments },
    }),
    signal,
  })
  const tooLarge = `${input.tool} response exceeded ${maxBytes} bytes`
  if (!response.ok) {
    await response.body?.cancel()
    throw new Refused(`${input.tool} request failed with status code ${response.status}`)
  }
  if ((announcedLength(response.headers) ?? 0) > maxBytes) {
    await response.body?.cancel()
    throw new Refused(tooLarge)
  }
  const bytes = await readBounded(response.body, maxBytes).catch((error: unknown) => {
    throw error instanceof BodyTooLargeError ? new Refused(tooLarge) : error
  })
  return new TextDecoder().decode(bytes)
}

function reasonOf(tool: string, error: unknown): string {
  if (error instanceof Refused) return error.message
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ""
    return `${tool} request failed: ${error.message}${cause}`
  }
  return `${tool} request failed: ${String(error)}`
}

/** Calls the tool; succeeds with its first non-empty text, or `undefined` when it returned none. */
export const callTool = (input: CallInput): Effect.Effect<string | undefined, CallError> => {
  const fail = (reason: string) => new CallError({ tool: input.tool, reason })
  return Effect.tryPromise({
    try: (signal) => post(input, input.maxBytes ?? MAX_RESPONSE_BYTES, signal),
    catch: (error) => fail(reasonOf(input.tool, error)),
  }).pipe(
    Effect.timeoutOrElse({
      duration: input.timeout ?? TIMEOUT,
      orElse: () => Effect.fail(fail(`${input.tool} request timed out`)),
    }),
    Effect.flatMap((body) => {
      const parsed = parseResponse(input.tool, body)
      return "failure" in parsed ? Effect.fail(fail(parsed.failure)) : Effect.succeed(parsed.text)
    }),
  )
}
