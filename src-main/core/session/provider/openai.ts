import { Cause, Result, Schema } from "effect"
import { describeIssues } from "../../schema/issues"
import type { Tool } from "../../tool/Tool"
import type { Provider } from "./Provider"

// The OpenAI chat-completions wire format, as a pure mapping: the common subset that OpenAI,
// OpenRouter, Ollama, LM Studio, vLLM and llama.cpp all accept and produce.

/** Something the server sent that is not a usable turn; the caller adds the URL. */
export interface Problem {
  readonly kind: "http" | "malformed"
  readonly detail: string
}

const problem = (kind: Problem["kind"], detail: string): Result.Result<never, Problem> => Result.fail({ kind, detail })

// ---------------------------------------------------------------------------------------------
// Request

export type WirePart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image_url"; readonly image_url: { readonly url: string } }

export interface WireToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

export type WireMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string | ReadonlyArray<WirePart> }
  | { readonly role: "assistant"; readonly content: string; readonly tool_calls?: ReadonlyArray<WireToolCall> }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string }

export interface WireTool {
  readonly type: "function"
  readonly function: { readonly name: string; readonly description: string; readonly parameters: unknown }
}

export interface WireRequest {
  readonly model: string
  readonly messages: ReadonlyArray<WireMessage>
  readonly tools?: ReadonlyArray<WireTool>
  readonly tool_choice?: "auto"
  readonly stream: boolean
}

/** `<base_url>/chat/completions`, whatever trailing slashes the configured URL has. */
export const chatCompletionsUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, "")}/chat/completions`

/**
 * The request body for one turn. With `toolChoice: "none"` (or no tools) neither `tools` nor
 * `tool_choice` is sent: several servers reject `tool_choice` without tools, and an empty list.
 * Images returned by tools cannot travel in a `tool` message (its content is text on every
 * server), so they follow the run of tool messages as one user message of `image_url` parts.
 */
export function requestBody(model: string, request: Provider.Request, stream: boolean): WireRequest {
  const messages: Array<WireMessage> = []
  let images: Array<WirePart> = []
  const flushImages = () => {
    if (images.length > 0) messages.push({ role: "user", content: images })
    images = []
  }
  for (const message of request.messages) {
    // Tool messages must directly follow their assistant message, so images wait for the run's end.
    if (message.role !== "tool") flushImages()
    switch (message.role) {
      case "system":
        messages.push({ role: "system", content: message.text })
        break
      case "user":
        messages.push({ role: "user", content: message.text })
        break
      case "assistant":
        messages.push(
          message.toolCalls.length === 0
            ? { role: "assistant", content: message.text }
            : { role: "assistant", content: message.text, tool_calls: message.toolCalls.map(wireToolCall) },
        )
        break
      case "tool": {
        const { content, attachments } = toolResultContent(message)
        messages.push({ role: "tool", tool_call_id: message.toolCallId, content })
        images.push(...attachments)
        break
      }
    }
  }
  flushImages()
  const tools = request.toolChoice === "auto" ? request.tools.map(wireTool) : []
  return tools.length > 0 ? { model, messages, tools, tool_choice: "auto", stream } : { model, messages, stream }
}

function wireToolCall(call: Provider.ToolCall): WireToolCall {
  // Arguments that were not JSON travel back exactly as the model wrote them.
  const args = typeof call.input === "string" ? call.input : (JSON.stringify(call.input ?? {}) ?? "{}")
  return { id: call.id, type: "function", function: { name: call.name, arguments: args } }
}

const wireTool = (definition: Tool.Definition): WireTool => ({
  type: "function",
  function: { name: definition.name, description: definition.description, parameters: definition.inputSchema },
})

/**
 * A result as `tool` message text: text as is, JSON as its text, an error prefixed with `Error: `
 * so the model reads it as a failure. Image parts are attached after the tool messages; other
 * files (PDFs, ...) are replaced by a note, because no common server accepts them.
 */
export function toolResultContent(message: Provider.ToolResultMessage): {
  readonly content: string
  readonly attachments: ReadonlyArray<WirePart>
} {
  const result = message.result
  switch (result.type) {
    case "text":
      return { content: result.value, attachments: [] }
    case "json":
      return { content: JSON.stringify(result.value) ?? "null", attachments: [] }
    case "error":
      return { content: `Error: ${result.value}`, attachments: [] }
    case "content": {
      const lines: Array<string> = []
      const attachments: Array<WirePart> = []
      for (const part of result.value) {
        if (part.type === "text") {
          lines.push(part.text)
          continue
        }
        const label = part.name ?? part.mime
        if (part.mime.startsWith("image/")) {
          lines.push(`[image ${label}: attached in the next message]`)
          attachments.push(
            { type: "text", text: `Image ${label} from the ${message.name} result ${message.toolCallId}:` },
            { type: "image_url", image_url: { url: part.uri } },
          )
        } else lines.push(`[file ${label} (${part.mime}) not shown: only text and images reach the model]`)
      }
      return { content: lines.join("\n"), attachments }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Response

const nullish = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

const WireUsage = Schema.Struct({
  prompt_tokens: nullish(Schema.Number),
  completion_tokens: nullish(Schema.Number),
  total_tokens: nullish(Schema.Number),
})

// Some servers send content as an array of parts; only text parts matter.
const WireContent = Schema.Union([
  Schema.String,
  Schema.Array(Schema.Struct({ type: Schema.String, text: nullish(Schema.String) })),
])

const WireCall = Schema.Struct({
  id: nullish(Schema.String),
  function: nullish(
    Schema.Struct({
      name: nullish(Schema.String),
      // A string by the protocol; some servers send the parsed object instead.
      arguments: nullish(Schema.Unknown),
    }),
  ),
})

const Completion = Schema.Struct({
  choices: nullish(
    Schema.Array(
      Schema.Struct({
        index: nullish(Schema.Number),
        message: nullish(Schema.Struct({ content: nullish(WireContent), tool_calls: nullish(Schema.Array(WireCall)) })),
        finish_reason: nullish(Schema.String),
      }),
    ),
  ),
  usage: nullish(WireUsage),
  error: nullish(Schema.Unknown),
})

const Chunk = Schema.Struct({
  choices: nullish(
    Schema.Array(
      Schema.Struct({
        index: nullish(Schema.Number),
        delta: nullish(
          Schema.Struct({
            content: nullish(WireContent),
            tool_calls: nullish(Schema.Array(Schema.Struct({ ...WireCall.fields, index: nullish(Schema.Number) }))),
          }),
        ),
        finish_reason: nullish(Schema.String),
      }),
    ),
  ),
  usage: nullish(WireUsage),
  error: nullish(Schema.Unknown),
})

const decodeJson = Schema.decodeUnknownExit(Schema.fromJsonString(Schema.Unknown))
const decodeCompletionShape = Schema.decodeUnknownExit(Completion, { errors: "all" })
const decodeChunkShape = Schema.decodeUnknownExit(Chunk, { errors: "all" })

/** A short, one-line rendering of something the server sent, for messages. */
export function preview(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** The message of an OpenAI-style `error` value (`{ error: { message } }`, or a bare string). */
export function errorMessage(error: unknown): string {
  if (typeof error === "string") return preview(error)
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string")
    return preview(error.message)
  return preview(JSON.stringify(error) ?? String(error))
}

/** The summary of an error response body: its error message when it has one, else its text. */
export function errorBodySummary(body: string): string {
  const json = decodeJson(body)
  if (json._tag === "Success" && typeof json.value === "object" && json.value !== null && "error" in json.value)
    return errorMessage(json.value.error)
  return preview(body)
}

function parse(text: string, what: string): Result.Result<unknown, Problem> {
  const json = decodeJson(text)
  if (json._tag === "Success") return Result.succeed(json.value)
  return problem("malformed", `${what} is not JSON: ${preview(text) || "(empty)"}`)
}

function issues(cause: Cause.Cause<Schema.SchemaError>): string {
  const error = Cause.findError(cause)
  return Result.isSuccess(error) ? describeIssues(error.success) : "unexpected shape"
}

function finishReason(raw: string | null | undefined, hasCalls: boolean): Provider.FinishReason {
  switch (raw) {
    case "stop":
    case "eos":
      return "stop"
    case "tool_calls":
    case "function_call":
      return "tool-calls"
    case "length":
      return "length"
    case "content_filter":
      return "content-filter"
    case null:
    case undefined:
      return hasCalls ? "tool-calls" : "stop"
    default:
      return "other"
  }
}

function usageOf(usage: typeof WireUsage.Type | null | undefined): Provider.Usage | undefined {
  if (!usage) return undefined
  const result: { inputTokens?: number; outputTokens?: number; totalTokens?: number } = {}
  if (typeof usage.prompt_tokens === "number") result.inputTokens = usage.prompt_tokens
  if (typeof usage.completion_tokens === "number") result.outputTokens = usage.completion_tokens
  if (typeof usage.total_tokens === "number") result.totalTokens = usage.total_tokens
  return Object.keys(result).length > 0 ? result : undefined
}

function contentText(content: typeof WireContent.Type | null | undefined): string {
  if (content === null || content === undefined) return ""
  if (typeof content === "string") return content
  return content.map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : "")).join("")
}

/**
 * The arguments of a call as the tool's input. Empty arguments mean `{}` (servers send `""` for
 * tools without parameters). Text that is not JSON is kept as the input, with `inputError`, so
 * the runner answers the call as invalid input instead of the turn failing.
 */
export function parseArguments(raw: unknown): { readonly input: unknown; readonly inputError?: string } {
  if (raw === null || raw === undefined) return { input: {} }
  if (typeof raw !== "string") return { input: raw }
  if (raw.trim() === "") return { input: {} }
  const json = decodeJson(raw)
  if (json._tag === "Success") return { input: json.value }
  return { input: raw, inputError: `the arguments are not valid JSON: ${preview(raw, 120)}` }
}

function toolCall(id: string, name: string, raw: unknown): Provider.ToolCall {
  const { input, inputError } = parseArguments(raw)
  return inputError === undefined ? { id, name, input } : { id, name, input, inputError }
}

/**
 * A non-streamed completion as a turn. `fallbackId` names calls that came without an id (some
 * local servers omit it); the runner needs one to answer the call.
 */
export function decodeCompletion(
  text: string,
  fallbackId: () => string,
): Result.Result<Provider.AssistantTurn, Problem> {
  const json = parse(text, "the response")
  if (Result.isFailure(json)) return Result.fail(json.failure)
  const exit = decodeCompletionShape(json.success)
  if (exit._tag === "Failure")
    return problem("malformed", `the response is not a chat completion: ${issues(exit.cause)}`)
  const completion = exit.value
  if (completion.error !== undefined && completion.error !== null && !completion.choices?.length)
    return problem("http", `the server reported an error: ${errorMessage(completion.error)}`)
  const choices = completion.choices ?? []
  const choice = choices.find((candidate) => (candidate.index ?? 0) === 0) ?? choices[0]
  if (choice === undefined) return problem("malformed", `the response has no choices: ${preview(text)}`)
  if (!choice.message) return problem("malformed", `the response's choice has no message: ${preview(text)}`)
  const toolCalls = (choice.message.tool_calls ?? []).map((call) =>
    toolCall(call.id || fallbackId(), call.function?.name ?? "", call.function?.arguments),
  )
  const usage = usageOf(completion.usage)
  const turn = {
    text: contentText(choice.message.content),
    toolCalls,
    finishReason: finishReason(choice.finish_reason, toolCalls.length > 0),
  }
  return Result.succeed(usage ? { ...turn, usage } : turn)
}

interface PartialCall {
  id: string | undefined
  name: string
  args: string
}

/**
 * Assembles a streamed completion from its `data:` payloads. Text deltas concatenate; tool-call
 * deltas are keyed by `index`: the id and name come in the first delta of a call, argument
 * fragments concatenate. Tolerated: deltas without `index` (matched by id, else the latest call),
 * ids repeated or missing after the first delta, a new id reusing an index (a new call),
 * `reasoning_content` and other extra fields, a final usage-only chunk with no choices.
 */
export class StreamAssembler {
  private text = ""
  private readonly calls = new Map<number, PartialCall>()
  /** Wire index → call key; a new id arriving on a used index moves the index to a new call. */
  private readonly keys = new Map<number, number>()
  private lastKey: number | undefined = undefined
  private finish: string | undefined = undefined
  private usage: Provider.Usage | undefined = undefined
  private done = false

  /** True once `[DONE]` arrived; later data is ignored. */
  get isDone(): boolean {
    return this.done
  }

  /** Feeds one event's data. */
  push(data: string): Result.Result<void, Problem> {
    if (this.done) return Result.succeed(undefined)
    if (data.trim() === "[DONE]") {
      this.done = true
      return Result.succeed(undefined)
    }
    const json = parse(data, "a stream event")
    if (Result.isFailure(json)) return Result.fail(json.failure)
    const exit = decodeChunkShape(json.success)
    if (exit._tag === "Failure")
      return problem("malformed", `a stream event is not a chat completion chunk: ${issues(exit.cause)}`)
    const chunk = exit.value
    if (chunk.error !== undefined && chunk.error !== null)
      return problem("http", `the server reported an error in the stream: ${errorMessage(chunk.error)}`)
    this.usage = usageOf(chunk.usage) ?? this.usage
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue
      this.text += contentText(choice.delta?.content)
      for (const [position, delta] of (choice.delta?.tool_calls ?? []).entries()) {
        const key = this.keyOf(delta.index, delta.id, position)
        const call = this.calls.get(key) ?? { id: undefined, name: "", args: "" }
        this.calls.set(key, call)
        this.lastKey = key
        if (delta.id && call.id === undefined) call.id = delta.id
        const name = delta.function?.name
        // Some servers repeat the whole name in every delta; others would split it.
        if (name && name !== call.name) call.name += name
        const args = delta.function?.arguments
        if (typeof args === "string") call.args += args
        else if (args !== null && args !== undefined) call.args = JSON.stringify(args) ?? ""
      }
      if (choice.finish_reason) this.finish = choice.finish_reason
    }
    return Result.succeed(undefined)
  }

  private keyOf(index: number | null | undefined, id: string | null | undefined, position: number): number {
    const next = () => (this.calls.size === 0 ? 0 : Math.max(...this.calls.keys()) + 1)
    if (typeof index === "number") {
      const key = this.keys.get(index)
      if (key === undefined) {
        const fresh = this.calls.has(index) ? next() : index
        this.keys.set(index, fresh)
        return fresh
      }
      const existing = this.calls.get(key)?.id
      if (id && existing !== undefined && existing !== id) {
        const fresh = next()
        this.keys.set(index, fresh)
        return fresh
      }
      return key
    }
    if (id) {
      for (const [key, call] of this.calls) if (call.id === id) return key
      return next()
    }
    return this.lastKey ?? position
  }

  /**
   * The assembled turn at the end of the stream. A stream that stops before `[DONE]` and without
   * a finish reason was cut off: that is an error, not a shorter answer.
   */
  end(fallbackId: () => string): Result.Result<Provider.AssistantTurn, Problem> {
    if (!this.done && this.finish === undefined)
      return problem("malformed", "the stream ended before [DONE] and without a finish_reason")
    const toolCalls = Array.from(this.calls.entries())
      .sort(([a], [b]) => a - b)
      .map(([, call]) => toolCall(call.id ?? fallbackId(), call.name, call.args))
    const turn = { text: this.text, toolCalls, finishReason: finishReason(this.finish, toolCalls.length > 0) }
    return Result.succeed(this.usage ? { ...turn, usage: this.usage } : turn)
  }
}
