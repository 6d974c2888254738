import { readFile } from "node:fs/promises"
import { resolve } from "node:path"
import { Cause, Effect, Result, Schema } from "effect"
import type { Config } from "../../config/Config"
import { describeIssues } from "../../schema/issues"
import { preview } from "./openai"
import { Provider } from "./Provider"

export * as Scripted from "./Scripted"

/** What one previous tool result must look like; every key is optional. */
export const ResultExpectation = Schema.Struct({
  /** The tool the result came from (checked against the call on the previous line at load). */
  name: Schema.optionalKey(Schema.String),
  type: Schema.optionalKey(Schema.Literals(["text", "json", "content", "error"])),
  /** A substring of the result's text (JSON results as JSON text, files as `[file <mime> <name>]`). */
  contains: Schema.optionalKey(Schema.String),
})
export type ResultExpectation = typeof ResultExpectation.Type

/** What a turn expects back from the previous turn's tool calls. */
export const Expectation = Schema.Struct({
  /** One entry per tool call of the previous turn, in call order; `{}` accepts anything. */
  results: Schema.optionalKey(Schema.Array(ResultExpectation)),
  /** Some result of the previous turn is an error containing this text. */
  error: Schema.optionalKey(Schema.String),
})
export type Expectation = typeof Expectation.Type

export const ScriptToolCall = Schema.Struct({
  /** Default `call_<turn>_<index>`: turn counts from 1, index from 0 within the turn. */
  id: Schema.optionalKey(Schema.NonEmptyString),
  name: Schema.NonEmptyString,
  /** The tool input, normally an object; default `{}`. */
  input: Schema.optionalKey(Schema.Unknown),
})

/** One line of a script: one assistant turn. */
export const ScriptTurn = Schema.Struct({
  text: Schema.optionalKey(Schema.String),
  toolCalls: Schema.optionalKey(Schema.Array(ScriptToolCall)),
  expect: Schema.optionalKey(Expectation),
})
export type ScriptTurn = typeof ScriptTurn.Type

/** A decoded turn with its place in the file and its calls' final ids. */
export interface Turn {
  /** 1-based line number in the file. */
  readonly line: number
  readonly text: string
  readonly toolCalls: ReadonlyArray<Provider.ToolCall>
  readonly expect: Expectation | undefined
}

export interface Script {
  readonly file: string
  readonly turns: ReadonlyArray<Turn>
}

/** Returned once the script is exhausted: no tool calls, so the runner's loop ends. */
export const END_OF_SCRIPT: Provider.AssistantTurn = Object.freeze({ text: "", toolCalls: [], finishReason: "stop" })

const decodeLine = Schema.decodeUnknownExit(Schema.fromJsonString(ScriptTurn), {
  onExcessProperty: "error",
  errors: "all",
})

/**
 * Parses a JSONL script. Blank lines and lines starting with `//` are skipped. Everything that can
 * be known without a conversation is checked here, so a broken script fails when it is loaded and
 * names its line: JSON and shape, a turn with neither text nor calls, duplicate call ids, and
 * expectations that do not fit the calls of the turn before.
 */
export function parse(file: string, text: string): Result.Result<Script, string> {
  const turns: Array<Turn> = []
  const ids = new Map<string, number>()
  const lines = text.split(/\r?\n/)
  for (const [index, raw] of lines.entries()) {
    const line = index + 1
    const trimmed = raw.trim()
    if (trimmed === "" || trimmed.startsWith("//")) continue
    const at = (reason: string) => Result.fail(`line ${line}: ${reason}`)
    const decoded = decodeLine(trimmed)
    if (decoded._tag === "Failure") {
      const error = Cause.findError(decoded.cause)
      const detail = Result.isSuccess(error) ? describeIssues(error.success) : "unreadable"
      return at(detail.startsWith("Expected a valid JSON") ? `not valid JSON: ${preview(trimmed, 80)}` : detail)
    }
    const turn = decoded.value
    const number = turns.length + 1
    const toolCalls = (turn.toolCalls ?? []).map((call, position) => ({
      id: call.id ?? `call_${number}_${position}`,
      name: call.name,
      input: call.input === undefined ? {} : call.input,
    }))
    if (!turn.text && toolCalls.length === 0) return at("a turn needs text or toolCalls")
    for (const call of toolCalls) {
      const used = ids.get(call.id)
      if (used !== undefined) return at(`tool call id ${call.id} is already used on line ${used}`)
      ids.set(call.id, line)
    }
    const previous = turns.at(-1)
    const problem = turn.expect ? expectationProblem(turn.expect, previous) : undefined
    if (problem) return at(problem)
    turns.push({ line, text: turn.text ?? "", toolCalls, expect: turn.expect })
  }
  if (turns.length === 0) return Result.fail("the script has no turns")
  return Result.succeed({ file, turns })
}

function expectationProblem(expect: Expectation, previous: Turn | undefined): string | undefined {
  if (expect.results === undefined && expect.error === undefined) return undefined
  const calls = previous?.toolCalls ?? []
  if (calls.length === 0)
    return previous
      ? `expect needs tool calls on the turn before, but line ${previous.line} makes none`
      : "expect needs tool calls on the turn before, but this is the first turn"
  const results = expect.results
  if (results === undefined) return undefined
  if (results.length !== calls.length)
    return `expect.results lists ${results.length} result(s) but line ${previous!.line} makes ${calls.length} tool call(s)`
  for (const [index, expected] of results.entries())
    if (expected.name !== undefined && expected.name !== calls[index]!.name)
      return `expect.results[${index}] names ${expected.name} but call ${index} on line ${previous!.line} is ${calls[index]!.name}`
  return undefined
}

const shown = (result: Provider.ToolResultMessage["result"]) =>
  `${result.type} ${JSON.stringify(preview(Provider.resultText(result)))}`

/**
 * Why the conversation does not fit turn `index` of the script, or undefined when it does: the
 * previous assistant message must be the previous scripted turn, and its results must meet the
 * turn's `expect`.
 */
export function mismatch(script: Script, index: number, messages: ReadonlyArray<Provider.Message>): string | undefined {
  const turn = script.turns[index]!
  const previousTurn = script.turns[index - 1]
  const last = messages.findLastIndex((message) => message.role === "assistant")
  const previous = last === -1 ? undefined : (messages[last] as Provider.AssistantMessage)
  if (previousTurn && previous) {
    const scripted = previousTurn.toolCalls.map((call) => call.id).join(", ")
    const made = previous.toolCalls.map((call) => call.id).join(", ")
    if (scripted !== made)
      return `the conversation does not follow this script: the previous assistant turn made calls [${made}], line ${previousTurn.line} makes [${scripted}]`
  }
  const expect = turn.expect
  if (!expect || !previousTurn) return undefined
  const results = new Map<string, Provider.ToolResultMessage>()
  for (const message of messages.slice(last + 1)) if (message.role === "tool") results.set(message.toolCallId, message)
  const calls = previousTurn.toolCalls
  for (const [index, expected] of (expect.results ?? []).entries()) {
    const call = calls[index]!
    const label = `the result of ${call.name} ${call.id}`
    const result = results.get(call.id)
    if (result === undefined) return `expected ${label}, got none`
    if (expected.name !== undefined && result.name !== expected.name)
      return `expected ${label} to come from ${expected.name}, got ${result.name}`
    if (expected.type !== undefined && result.result.type !== expected.type)
      return `expected ${label} to be ${expected.type}, got ${shown(result.result)}`
    if (expected.contains !== undefined && !Provider.resultText(result.result).includes(expected.contains))
      return `expected ${label} to contain ${JSON.stringify(expected.contains)}, got ${shown(result.result)}`
  }
  if (expect.error !== undefined) {
    const answered = calls.flatMap((call) => results.get(call.id) ?? [])
    const found = answered.some(
      (result) => result.result.type === "error" && result.result.value.includes(expect.error!),
    )
    if (!found) {
      const got = answered.map((result) => `${result.name}: ${shown(result.result)}`).join("; ") || "no results"
      return `expected an error result containing ${JSON.stringify(expect.error)}, got ${got}`
    }
  }
  return undefined
}

export interface Options {
  /** The provider's name in messages (its key under `providers`); default `scripted`. */
  readonly name?: string
  /** A relative `script` path resolves against this directory; default the working directory. */
  readonly directory?: string
}

/**
 * A provider that replays a script. It keeps no state: the turn to play is the number of
 * assistant messages already in the conversation, so the same script and the same results give
 * the same turns, one instance serves any number of sessions, and a resumed conversation picks
 * up at the right line. Past the last line it answers {@link END_OF_SCRIPT}.
 */
export const make = Effect.fn("Scripted.make")(function* (config: Config.ProviderConfig, options: Options = {}) {
  const name = options.name ?? config.type
  const fail = (reason: string) => new Provider.ConfigError({ provider: name, reason })
  if (!config.script) return yield* fail("script is required for a scripted provider")
  const file = resolve(options.directory ?? process.cwd(), config.script)
  const text = yield* Effect.tryPromise({
    try: () => readFile(file, "utf8"),
    catch: (cause) => fail(`cannot read the script ${file}: ${cause instanceof Error ? cause.message : String(cause)}`),
  })
  const parsed = parse(file, text)
  if (Result.isFailure(parsed)) return yield* fail(`script ${file} ${parsed.failure}`)
  return fromScript(parsed.success, name)
})

/** A provider over an already parsed script. */
export function fromScript(script: Script, name = "scripted"): Provider.Interface {
  const turn = Effect.fn("Scripted.turn")(function* (request: Provider.Request) {
    const index = request.messages.filter((message) => message.role === "assistant").length
    const next = script.turns[index]
    if (next === undefined) return END_OF_SCRIPT
    const problem = mismatch(script, index, request.messages)
    if (problem !== undefined)
      return yield* new Provider.ProviderError({
        provider: name,
        kind: "script",
        message: `scripted provider: ${script.file} line ${next.line}: ${problem}`,
      })
    return {
      text: next.text,
      toolCalls: next.toolCalls,
      finishReason: next.toolCalls.length > 0 ? "tool-calls" : "stop",
    } satisfies Provider.AssistantTurn
  })
  return { name, turn }
}
