import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import { parseArguments, StreamAssembler } from "@core/session/provider/openai"
import type { Provider } from "@core/session/provider/Provider"
import { SseDecoder } from "@core/session/provider/sse"
import { callDelta, chunk, sseText } from "../../../../support/openai-server"

const encoder = new TextEncoder()

/** The turn the provider's stream pipeline makes of these bytes, or the problem it reports. */
function assemble(pieces: ReadonlyArray<Uint8Array>): Result.Result<Provider.AssistantTurn, unknown> {
  const decoder = new SseDecoder()
  const assembler = new StreamAssembler()
  for (const piece of pieces)
    for (const event of decoder.push(piece)) {
      const fed = assembler.push(event.data)
      if (Result.isFailure(fed)) return Result.fail(fed.failure)
    }
  for (const event of decoder.end()) {
    const fed = assembler.push(event.data)
    if (Result.isFailure(fed)) return Result.fail(fed.failure)
  }
  let n = 0
  return assembler.end(() => `fallback_${n++}`)
}

const callsOf = (...pieces: ReadonlyArray<object | string>): unknown => {
  const turn = assemble([encoder.encode(sseText(pieces))])
  return Result.isSuccess(turn) ? turn.success.toolCalls : turn.failure
}

function splitAt(text: string, cuts: ReadonlyArray<number>): ReadonlyArray<string> {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b)
  const parts: Array<string> = []
  let start = 0
  for (const point of [...points, text.length]) {
    parts.push(text.slice(start, point))
    start = point
  }
  return parts
}

describe("openai", () => {
  it("assembles the same turn wherever the stream's bytes are cut", () => {
    const json = fc.dictionary(fc.string({ unit: "grapheme", maxLength: 6 }), fc.string({ unit: "grapheme" }), {
      maxKeys: 4,
    })
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme" }), { maxLength: 5 }),
        json,
        json,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (texts, first, second, firstCuts, secondCuts, byteCuts) => {
          const a = splitAt(JSON.stringify(first), firstCuts)
          const b = splitAt(JSON.stringify(second), secondCuts)
          const deltas: Array<object> = [
            chunk({ role: "assistant", content: "" }),
            ...texts.map((content) => chunk({ content, reasoning_content: "thinking" })),
            chunk({ tool_calls: [callDelta(0, { id: "call_a", name: "read", arguments: "" })] }),
            chunk({ tool_calls: [callDelta(1, { id: "call_b", name: "grep", arguments: "" })] }),
          ]
          // Interleave the two calls' argument fragments by index.
          for (let i = 0; i < Math.max(a.length, b.length); i++) {
            if (i < a.length) deltas.push(chunk({ tool_calls: [callDelta(0, { arguments: a[i]! })] }))
            if (i < b.length) deltas.push(chunk({ tool_calls: [callDelta(1, { arguments: b[i]! })] }))
          }
          deltas.push(chunk({}, "tool_calls"), {
            id: "x",
            choices: [],
            usage: { prompt_tokens: 3, completion_tokens: 4 },
          })
          const bytes = encoder.encode(sseText(deltas))
          const expected: Provider.AssistantTurn = {
            text: texts.join(""),
            toolCalls: [
              { id: "call_a", name: "read", input: first },
              { id: "call_b", name: "grep", input: second },
            ],
            finishReason: "tool-calls",
            usage: { inputTokens: 3, outputTokens: 4 },
          }
          const points = [...new Set(byteCuts.map((cut) => cut % (bytes.length + 1)))].sort((x, y) => x - y)
          const pieces = [0, ...points].map((start, index) => bytes.subarray(start, [...points, bytes.length][index]))
          assert.deepStrictEqual(assemble(pieces), Result.succeed(expected))
        },
      ),
    )
  })

  it("matches deltas without an index by id, else to the latest call", () => {
    const calls = callsOf(
      chunk({ tool_calls: [{ id: "c1", function: { name: "read", arguments: '{"a":' } }] }),
      chunk({ tool_calls: [{ function: { arguments: "1}" } }] }),
      chunk({ tool_calls: [{ id: "c2", function: { name: "bash", arguments: "{}" } }] }),
      chunk({}, "tool_calls"),
    )
    assert.deepStrictEqual(calls, [
      { id: "c1", name: "read", input: { a: 1 } },
      { id: "c2", name: "bash", input: {} },
    ])
  })

  it("starts a new call when a new id arrives on an index already used, and names calls without an id", () => {
    const calls = callsOf(
      chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "read", arguments: "{}" } }] }),
      chunk({ tool_calls: [{ index: 0, id: "c2", function: { name: "glob", arguments: '{"p":1}' } }] }),
      chunk({ tool_calls: [{ index: 2, function: { name: "grep", arguments: "" } }] }),
      chunk({}, "stop"),
    )
    assert.deepStrictEqual(calls, [
      { id: "c1", name: "read", input: {} },
      { id: "c2", name: "glob", input: { p: 1 } },
      { id: "fallback_0", name: "grep", input: {} },
    ])
  })

  it("keeps arguments that are not JSON as the raw input and says why", () => {
    assert.deepStrictEqual(parseArguments('{"path": "a'), {
      input: '{"path": "a',
      inputError: 'the arguments are not valid JSON: {"path": "a',
    })
    assert.deepStrictEqual(parseArguments("  "), { input: {} })
    assert.deepStrictEqual(parseArguments({ already: "parsed" }), { input: { already: "parsed" } })
  })

  it("refuses a stream that stops before [DONE] without a finish reason", () => {
    assert.deepStrictEqual(
      assemble([encoder.encode(sseText([chunk({ content: "Hel" })], false))]),
      Result.fail({ kind: "malformed", detail: "the stream ended before [DONE] and without a finish_reason" }),
    )
    assert.isTrue(Result.isSuccess(assemble([encoder.encode(sseText([chunk({ content: "Hi" }, "stop")], false))])))
  })
})
