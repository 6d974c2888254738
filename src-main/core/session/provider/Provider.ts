import { Schema } from "effect"
import type { Effect } from "effect"
import type { Tool } from "../../tool/Tool"

export * as Provider from "./Provider"

/** A file part of a tool result as the model receives it: the bytes travel as a `data:` URI. */
export const ModelContent = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("file"),
    uri: Schema.String,
    mime: Schema.String,
    name: Schema.optionalKey(Schema.String),
  }),
])

/** {@link Tool.ResultValue} as a schema, so the runner can persist a conversation and read it back. */
export const ResultValue = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text"), value: Schema.String }),
  Schema.Struct({ type: Schema.Literal("json"), value: Schema.Unknown }),
  Schema.Struct({ type: Schema.Literal("content"), value: Schema.Array(ModelContent) }),
  Schema.Struct({ type: Schema.Literal("error"), value: Schema.String }),
])

/**
 * One tool call the model made. `input` is unvalidated JSON; when the model's arguments were not
 * JSON at all, `input` is the raw argument text and `inputError` says why it could not be parsed.
 */
export const ToolCall = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown,
  inputError: Schema.optionalKey(Schema.String),
})
export type ToolCall = typeof ToolCall.Type

export const SystemMessage = Schema.Struct({ role: Schema.Literal("system"), text: Schema.String })
export type SystemMessage = typeof SystemMessage.Type

export const UserMessage = Schema.Struct({ role: Schema.Literal("user"), text: Schema.String })
export type UserMessage = typeof UserMessage.Type

export const AssistantMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  text: Schema.String,
  toolCalls: Schema.Array(ToolCall),
})
export type AssistantMessage = typeof AssistantMessage.Type

/** The answer to one tool call; every call of an assistant message gets exactly one. */
export const ToolResultMessage = Schema.Struct({
  role: Schema.Literal("tool"),
  toolCallId: Schema.String,
  /** The tool's model-facing name, as the call named it. */
  name: Schema.String,
  result: ResultValue,
})
export type ToolResultMessage = typeof ToolResultMessage.Type

/** A provider-neutral conversation entry; each provider maps it to its own wire format. */
export const Message = Schema.Union([SystemMessage, UserMessage, AssistantMessage, ToolResultMessage])
export type Message = typeof Message.Type

// The schema above must describe exactly the values the tool registry produces.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const resultValueMatchesTool: Same<typeof ResultValue.Type, Tool.ResultValue> = true
void resultValueMatchesTool

export interface Request {
  readonly messages: ReadonlyArray<Message>
  /** The turn's materialized definitions; empty when `toolChoice` is `none`. */
  readonly tools: ReadonlyArray<Tool.Definition>
  /** `none` on the agent's last step: no tools are advertised. */
  readonly toolChoice: "auto" | "none"
}

/**
 * Why the model stopped. Informative only: servers disagree (Ollama reports `stop` next to tool
 * calls), so the runner continues exactly when `toolCalls` is non-empty.
 */
export const FinishReason = Schema.Literals(["stop", "tool-calls", "length", "content-filter", "other"])
export type FinishReason = typeof FinishReason.Type

export const Usage = Schema.Struct({
  inputTokens: Schema.optionalKey(Schema.Number),
  outputTokens: Schema.optionalKey(Schema.Number),
  totalTokens: Schema.optionalKey(Schema.Number),
})
export type Usage = typeof Usage.Type

/** One complete provider turn. */
export interface AssistantTurn {
  readonly text: string
  readonly toolCalls: ReadonlyArray<ToolCall>
  readonly finishReason: FinishReason
  readonly usage?: Usage
}

export type ErrorKind = "network" | "http" | "malformed" | "script"

/**
 * A provider turn failed; the session fails with this message. `network`: the server could not be
 * reached, went silent or dropped the connection; `http`: it answered with an error status (or an
 * error object); `malformed`: the answer is not the protocol; `script`: a scripted conversation
 * went differently than written.
 */
export class ProviderError extends Schema.TaggedError<ProviderError>()("Provider.ProviderError", {
  /** The provider's name (its key under `providers`, or its type). */
  provider: Schema.String,
  kind: Schema.Literals(["network", "http", "malformed", "script"]),
  message: Schema.String,
  /** The HTTP status, for `http` errors that came with one. */
  status: Schema.optional(Schema.Number),
  cause: Schema.optional(Schema.Defect()),
}) {}

/** A provider cannot be built from its configuration (missing key, unreadable script, ...). */
export class ConfigError extends Schema.TaggedError<ConfigError>()("Provider.ConfigError", {
  provider: Schema.String,
  reason: Schema.String,
}) {
  override get message() {
    return `Cannot use provider ${this.provider}: ${this.reason}`
  }
}

/**
 * A model behind one interface. A provider holds no conversation state: everything a turn needs
 * is in the request, so one instance may serve many sessions at once.
 */
export interface Interface {
  /** The provider's name (its key under `providers`, or its type); used in messages. */
  readonly name: string
  /**
   * One provider turn: the assistant's complete answer to the conversation so far. Interrupting
   * it aborts the request in flight.
   */
  readonly turn: (request: Request) => Effect.Effect<AssistantTurn, ProviderError>
}

/** The text a person or a script check reads for a result: files show as a short marker. */
export function resultText(result: Tool.ResultValue): string {
  switch (result.type) {
    case "text":
    case "error":
      return result.value
    case "json":
      return JSON.stringify(result.value) ?? "null"
    case "content":
      return result.value
        .map((part) => (part.type === "text" ? part.text : `[file ${part.mime}${part.name ? ` ${part.name}` : ""}]`))
        .join("\n")
  }
}
