import { Effect, Schema } from "effect"
import type { SessionId } from "@contract/ids"
import { describeIssues } from "../schema/issues"

export * as Tool from "./Tool"

/**
 * What one invocation knows about itself: exactly these four fields (SPEC-CORE A.2). There is no
 * abort signal (cancellation is interruption), no `ask()` helper (a tool asks PermissionV2 itself)
 * and no message history.
 */
export interface Context {
  readonly sessionID: SessionId
  readonly agent: string
  /** The durable id of the assistant message holding the call; the runner owns that association. */
  readonly assistantMessageID: string
  readonly toolCallID: string
}

/** A tool's own projection of its output: text, or a base64 file the model may look at. */
export type Content =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "file"; readonly data: string; readonly mime: string; readonly name?: string }

/** Model content after settlement: file parts travel as `data:` URIs. */
export type ModelContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "file"; readonly uri: string; readonly mime: string; readonly name?: string }

/** The settled result of one call before bounding: the encoded output and what the model reads. */
export interface ToolOutput {
  readonly structured: unknown
  readonly content: ReadonlyArray<ModelContent>
}

/** The value a provider receives as the tool result. */
export type ResultValue =
  | { readonly type: "text"; readonly value: string }
  | { readonly type: "json"; readonly value: unknown }
  | { readonly type: "content"; readonly value: ReadonlyArray<ModelContent> }
  | { readonly type: "error"; readonly value: string }

/** A call as the provider made it; `input` is unvalidated JSON. */
export interface Call {
  readonly id: string
  readonly name: string
  readonly input: unknown
}

/** What a provider is told about a tool: `outputSchema` carries `$defs` when definitions are shared. */
export interface Definition {
  readonly name: string
  readonly description: string
  readonly inputSchema: JsonSchemaObject
  readonly outputSchema: JsonSchemaObject
}

export type JsonSchemaObject = { readonly [key: string]: unknown }

/**
 * The one model-visible failure a tool may produce. Leaves map deliberately classified,
 * recoverable errors to it; interruption and defects never become a `ToolFailure`.
 */
export class ToolFailure extends Schema.TaggedError<ToolFailure>()("LLM.ToolFailure", {
  message: Schema.String,
  error: Schema.optional(Schema.Defect()),
}) {}

/** A record passed to `register` is rejected whole: a bad name or a value not made by {@link make}. */
export class RegistrationError extends Schema.TaggedError<RegistrationError>()("Tool.RegistrationError", {
  name: Schema.String,
  message: Schema.String,
}) {}

/** Codecs must be self-contained: decoding and encoding need no services. */
export type Codec<A = unknown, I = unknown> = Schema.Codec<A, I, never, never>

export interface Config<Input extends Codec, Output extends Codec> {
  readonly description: string
  /** Decodes provider JSON into the domain input. */
  readonly input: Input
  /** Encodes the domain output; the encoded value is the structured result. */
  readonly output: Output
  /** The one and only executor. Services it needs are captured when the tool is constructed. */
  readonly execute: (input: Input["Type"], context: Context) => Effect.Effect<Output["Type"], ToolFailure>
  /** Pure, total projection for the model: sees the decoded input and the encoded output. */
  readonly toModelOutput?: (args: {
    readonly input: Input["Type"]
    readonly output: Output["Encoded"]
  }) => ReadonlyArray<Content>
}

declare const ToolTypeId: unique symbol

/** Any tool carrier, whatever its schemas. */
export interface AnyTool {
  readonly [ToolTypeId]: unknown
}

/** An opaque tool carrier: an empty frozen object; everything about the tool is private. */
export interface Tool<Input extends Codec = Codec, Output extends Codec = Codec> extends AnyTool {
  readonly [ToolTypeId]: { readonly input: Input; readonly output: Output }
}

interface Runtime {
  /** The permission action for catalog filtering, when decorated with {@link withPermission}. */
  readonly permission: string | undefined
  readonly definition: (name: string) => Definition
  readonly settle: (call: Call, context: Context) => Effect.Effect<ToolOutput, ToolFailure>
}

const runtimes = new WeakMap<object, Runtime>()

export const INVALID_TOOL_VALUE = "Invalid Tool value"

function runtimeOf(tool: unknown): Runtime {
  const runtime = typeof tool === "object" && tool !== null ? runtimes.get(tool) : undefined
  if (!runtime) throw new TypeError(INVALID_TOOL_VALUE)
  return runtime
}

/** True for values made by {@link make} or {@link withPermission}. */
export const isTool = (value: unknown): value is AnyTool =>
  typeof value === "object" && value !== null && runtimes.has(value)

export function make<Input extends Codec, Output extends Codec>(config: Config<Input, Output>): Tool<Input, Output> {
  const tool = Object.freeze({}) as Tool<Input, Output>
  const definitions = new Map<string, Definition>()
  const decodeInput = Schema.decodeUnknownEffect(Schema.toCodecJson(config.input))
  const encodeOutput = Schema.encodeEffect(config.output)
  const { description, execute, toModelOutput } = config
  runtimes.set(tool, {
    permission: undefined,
    definition: (name) => {
      const cached = definitions.get(name)
      if (cached) return cached
      const definition: Definition = Object.freeze({
        name,
        description,
        inputSchema: toJsonSchema(config.input),
        outputSchema: toJsonSchema(config.output),
      })
      definitions.set(name, definition)
      return definition
    },
    settle: (call, context) =>
      Effect.gen(function* () {
        const input = yield* decodeInput(call.input).pipe(
          Effect.mapError((error) => new ToolFailure({ message: `Invalid tool input: ${describeIssues(error)}` })),
        )
        // A synchronous throw from a badly written executor is a defect, like any other bug.
        const value = yield* Effect.suspend(() => execute(input, context))
        const output = yield* encodeOutput(value).pipe(
          Effect.mapError(
            (error) =>
              new ToolFailure({
                message: `Tool returned an invalid value for its output schema: ${describeIssues(error)}`,
              }),
          ),
        )
        const content: ReadonlyArray<ModelContent> = toModelOutput
          ? toModelOutput({ input, output }).map(toModelContent)
          : typeof output === "string"
            ? [{ type: "text", text: output }]
            : []
        return { structured: output, content } satisfies ToolOutput
      }),
  })
  return tool
}

function toModelContent(part: Content): ModelContent {
  if (part.type === "text") return { type: "text", text: part.text }
  const uri = `data:${part.mime};base64,${part.data}`
  return part.name === undefined
    ? { type: "file", uri, mime: part.mime }
    : { type: "file", uri, mime: part.mime, name: part.name }
}

function toJsonSchema(schema: Schema.Top): JsonSchemaObject {
  const document = Schema.toJsonSchemaDocument(schema)
  if (Object.keys(document.definitions).length === 0) return document.schema as JsonSchemaObject
  return { ...(document.schema as JsonSchemaObject), $defs: document.definitions }
}

/**
 * A new carrier with the same runtime that reports `action` for catalog filtering. The original is
 * never changed, so one tool can be registered under several names with different actions.
 */
export function withPermission<Input extends Codec, Output extends Codec>(
  tool: Tool<Input, Output>,
  action: string,
): Tool<Input, Output> {
  const decorated = Object.freeze({}) as Tool<Input, Output>
  runtimes.set(decorated, { ...runtimeOf(tool), permission: action })
  return decorated
}

/** The action catalog filtering uses: the decorated action, else the registration name. */
export const permission = (tool: AnyTool, name: string): string => runtimeOf(tool).permission ?? name

/** The model definition for `tool` registered as `name`; the same object on every call. */
export const definition = (name: string, tool: AnyTool): Definition => runtimeOf(tool).definition(name)

/** Runs SPEC-CORE A.3 for one call: decode, execute, encode, project. Only registries call this. */
export const settle = (tool: AnyTool, call: Call, context: Context): Effect.Effect<ToolOutput, ToolFailure> =>
  runtimeOf(tool).settle(call, context)

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/

export const isValidName = (name: string): boolean => NAME.test(name)

/**
 * Validates a whole registration record before anything changes and captures its entries, so
 * later changes to the caller's object have no effect.
 */
export function entriesOf(
  record: Readonly<Record<string, AnyTool>>,
): Effect.Effect<ReadonlyArray<readonly [string, AnyTool]>, RegistrationError> {
  return Effect.suspend(() => {
    const entries = Object.entries(record)
    for (const [name, tool] of entries) {
      if (!isValidName(name)) return Effect.fail(new RegistrationError({ name, message: `Invalid tool name: ${name}` }))
      if (!isTool(tool)) return Effect.fail(new RegistrationError({ name, message: INVALID_TOOL_VALUE }))
    }
    return Effect.succeed(entries)
  })
}

/**
 * The provider result for a (bounded) output: one text part is text, anything holding a file or
 * several parts is content, and an output without content is its structured JSON.
 */
export function toResultValue(output: ToolOutput): ResultValue {
  const [first, ...rest] = output.content
  if (first === undefined) return { type: "json", value: output.structured }
  if (first.type === "text" && rest.length === 0) return { type: "text", value: first.text }
  return { type: "content", value: output.content }
}
