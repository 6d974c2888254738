import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Provider } from "@core/session/provider/Provider"
import { Scripted } from "@core/session/provider/Scripted"
import type { Tool } from "@core/tool/Tool"
import { tempDir } from "../../../../support/temp"

const scriptFile = (lines: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const dir = yield* tempDir()
    const file = join(dir, "script.jsonl")
    writeFileSync(file, lines.join("\n"))
    return file
  })

const load = (lines: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const file = yield* scriptFile(lines)
    const provider = yield* Scripted.make({ type: "scripted", script: file })
    return { file, provider }
  })

const start: ReadonlyArray<Provider.Message> = [
  { role: "system", text: "You are a test." },
  { role: "user", text: "Go." },
]

/** The conversation after `turn`, each of its calls answered by `results[i]`. */
const answered = (
  messages: ReadonlyArray<Provider.Message>,
  turn: Provider.AssistantTurn,
  results: ReadonlyArray<Tool.ResultValue>,
): ReadonlyArray<Provider.Message> => [
  ...messages,
  { role: "assistant", text: turn.text, toolCalls: turn.toolCalls },
  ...turn.toolCalls.map((call, index): Provider.Message => ({
    role: "tool",
    toolCallId: call.id,
    name: call.name,
    result: results[index]!,
  })),
]

const request = (messages: ReadonlyArray<Provider.Message>): Provider.Request => ({
  messages,
  tools: [],
  toolChoice: "auto",
})

const text = (value: string): Tool.ResultValue => ({ type: "text", value })
const error = (value: string): Tool.ResultValue => ({ type: "error", value })

describe("Scripted", () => {
  it.effect("replays one line per turn and then answers an empty stop turn", () =>
    Effect.gen(function* () {
      const { provider } = yield* load([
        `{ "text": "Reading.", "toolCalls": [{ "name": "read", "input": { "filePath": "README.md" } }] }`,
        `{ "text": "Done." }`,
      ])
      const first = yield* provider.turn(request(start))
      assert.deepStrictEqual(first, {
        text: "Reading.",
        toolCalls: [{ id: "call_1_0", name: "read", input: { filePath: "README.md" } }],
        finishReason: "tool-calls",
      })
      const afterFirst = answered(start, first, [text("# Readme")])
      const second = yield* provider.turn(request(afterFirst))
      assert.deepStrictEqual(second, { text: "Done.", toolCalls: [], finishReason: "stop" })
      const third = yield* provider.turn(request(answered(afterFirst, second, [])))
      assert.deepStrictEqual(third, { text: "", toolCalls: [], finishReason: "stop" })
    }),
  )

  it.effect("names calls call_<turn>_<index> unless the line gives an id, and defaults the input to {}", () =>
    Effect.gen(function* () {
      const { provider } = yield* load([
        `{ "toolCalls": [{ "name": "glob", "input": { "pattern": "*.ts" } }, { "id": "mine", "name": "todowrite" }] }`,
        `{ "toolCalls": [{ "name": "bash", "input": { "command": "ls" } }, { "name": "read", "input": {} }] }`,
      ])
      const first = yield* provider.turn(request(start))
      assert.deepStrictEqual(
        first.toolCalls.map((call) => [call.id, call.input]),
        [
          ["call_1_0", { pattern: "*.ts" }],
          ["mine", {}],
        ],
      )
      const second = yield* provider.turn(request(answered(start, first, [text("a.ts"), text("ok")])))
      assert.deepStrictEqual(
        second.toolCalls.map((call) => call.id),
        ["call_2_0", "call_2_1"],
      )
    }),
  )

  it.effect("plays the same turns for the same script and results, whichever instance answers", () =>
    Effect.gen(function* () {
      const lines = [
        `{ "text": "a", "toolCalls": [{ "name": "bash", "input": { "command": "echo hi" } }] }`,
        `{ "text": "b", "toolCalls": [{ "name": "read", "input": { "filePath": "x" } }], "expect": { "results": [{ "type": "text" }] } }`,
        `{ "text": "c" }`,
      ]
      const play = Effect.gen(function* () {
        const { provider } = yield* load(lines)
        const turns: Array<Provider.AssistantTurn> = []
        let messages = start
        for (let i = 0; i < 4; i++) {
          const turn = yield* provider.turn(request(messages))
          turns.push(turn)
          messages = answered(messages, turn, [text("hi")])
        }
        return turns
      })
      const once = yield* play
      const again = yield* play
      assert.deepStrictEqual(again, once)
      assert.deepStrictEqual(
        once.map((turn) => turn.text),
        ["a", "b", "c", ""],
      )
    }),
  )

  it.effect("continues when the previous results meet the line's expectations", () =>
    Effect.gen(function* () {
      const { provider } = yield* load([
        `{ "toolCalls": [{ "name": "bash", "input": { "command": "ls" } }, { "name": "edit", "input": {} }] }`,
        `{ "text": "ok", "expect": { "results": [{ "name": "bash", "type": "text", "contains": "src" }, {}], "error": "User said no" } }`,
      ])
      const first = yield* provider.turn(request(start))
      const messages = answered(start, first, [text("README.md\nsrc\n"), error("User said no: use write instead")])
      const second = yield* provider.turn(request(messages))
      assert.strictEqual(second.text, "ok")
    }),
  )

  it.effect("fails with a script error naming the line when a result is not what the line expects", () =>
    Effect.gen(function* () {
      const { file, provider } = yield* load([
        `// the model lists files, then expects to see src`,
        `{ "toolCalls": [{ "name": "bash", "input": { "command": "ls" } }] }`,
        ``,
        `{ "text": "ok", "expect": { "results": [{ "type": "text", "contains": "src" }] } }`,
      ])
      const first = yield* provider.turn(request(start))
      const wrongType = yield* Effect.flip(
        provider.turn(request(answered(start, first, [error("Permission denied: bash on ls")]))),
      )
      assert.instanceOf(wrongType, Provider.ProviderError)
      assert.strictEqual(wrongType.kind, "script")
      assert.strictEqual(
        wrongType.message,
        `scripted provider: ${file} line 4: expected the result of bash call_1_0 to be text, got error "Permission denied: bash on ls"`,
      )
      const missingText = yield* Effect.flip(provider.turn(request(answered(start, first, [text("README.md")]))))
      assert.strictEqual(
        missingText.message,
        `scripted provider: ${file} line 4: expected the result of bash call_1_0 to contain "src", got text "README.md"`,
      )
      const unanswered = yield* Effect.flip(
        provider.turn(request([...start, { role: "assistant", text: "", toolCalls: first.toolCalls }])),
      )
      assert.strictEqual(
        unanswered.message,
        `scripted provider: ${file} line 4: expected the result of bash call_1_0, got none`,
      )
    }),
  )

  it.effect("fails when the error a line expects did not happen", () =>
    Effect.gen(function* () {
      const { file, provider } = yield* load([
        `{ "toolCalls": [{ "name": "bash", "input": { "command": "rm -rf build" } }] }`,
        `{ "text": "I will not do that again.", "expect": { "error": "do not delete" } }`,
      ])
      const first = yield* provider.turn(request(start))
      const failure = yield* Effect.flip(provider.turn(request(answered(start, first, [text("removed")]))))
      assert.strictEqual(
        failure.message,
        `scripted provider: ${file} line 2: expected an error result containing "do not delete", got bash: text "removed"`,
      )
      const json = yield* provider.turn(
        request(answered(start, first, [error("User rejected with feedback: do not delete build")])),
      )
      assert.strictEqual(json.text, "I will not do that again.")
    }),
  )

  it.effect("refuses a conversation whose previous assistant turn is not the script's", () =>
    Effect.gen(function* () {
      const { file, provider } = yield* load([
        `{ "toolCalls": [{ "name": "bash", "input": { "command": "ls" } }] }`,
        `{ "text": "done" }`,
      ])
      const failure = yield* Effect.flip(
        provider.turn(
          request([...start, { role: "assistant", text: "", toolCalls: [{ id: "other", name: "read", input: {} }] }]),
        ),
      )
      assert.strictEqual(
        failure.message,
        `scripted provider: ${file} line 2: the conversation does not follow this script: the previous assistant turn made calls [other], line 1 makes [call_1_0]`,
      )
    }),
  )

  it.effect("reports a malformed line with its line number when the script is loaded", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [[`// header`, `{ "text": "a" }`, `{ "text": "b"`], `line 3: not valid JSON: { "text": "b"`],
        [[`{ "text": "a", "tool_calls": [] }`], `line 1: tool_calls: Expected no excess property`],
        [[`{ "toolCalls": [{ "input": {} }] }`], `line 1: toolCalls[0].name: Missing key`],
        [[`[1, 2]`], `line 1: Expected object`],
        [[`{ "text": "" }`], `line 1: a turn needs text or toolCalls`],
        [
          [`{ "toolCalls": [{ "id": "x", "name": "a" }] }`, `{ "toolCalls": [{ "id": "x", "name": "b" }] }`],
          `line 2: tool call id x is already used on line 1`,
        ],
        [
          [`{ "text": "hi", "expect": { "error": "no" } }`],
          `line 1: expect needs tool calls on the turn before, but this is the first turn`,
        ],
        [
          [`{ "toolCalls": [{ "name": "bash" }] }`, `{ "text": "x", "expect": { "results": [{}, {}] } }`],
          `line 2: expect.results lists 2 result(s) but line 1 makes 1 tool call(s)`,
        ],
        [
          [`{ "toolCalls": [{ "name": "bash" }] }`, `{ "text": "x", "expect": { "results": [{ "name": "read" }] } }`],
          `line 2: expect.results[0] names read but call 0 on line 1 is bash`,
        ],
        [[`// only a comment`, ``], `the script has no turns`],
      ]
      for (const [lines, reason] of cases) {
        const file = yield* scriptFile(lines)
        const failure = yield* Effect.flip(Scripted.make({ type: "scripted", script: file }, { name: "demo" }))
        assert.instanceOf(failure, Provider.ConfigError)
        assert.strictEqual(failure.message, `Cannot use provider demo: script ${file} ${reason}`)
      }
    }),
  )

  it.effect("resolves a relative script against the given directory and names an unreadable one", () =>
    Effect.gen(function* () {
      const file = yield* scriptFile([`{ "text": "hello" }`])
      const dir = join(file, "..")
      const provider = yield* Scripted.make({ type: "scripted", script: "script.jsonl" }, { directory: dir })
      assert.strictEqual((yield* provider.turn(request(start))).text, "hello")
      const missing = yield* Effect.flip(Scripted.make({ type: "scripted", script: "nope.jsonl" }, { directory: dir }))
      assert.match(missing.message, /^Cannot use provider scripted: cannot read the script .*nope\.jsonl: ENOENT/)
      const unset = yield* Effect.flip(Scripted.make({ type: "scripted" }))
      assert.strictEqual(unset.message, "Cannot use provider scripted: script is required for a scripted provider")
    }),
  )

  it("accepts the example script documented in resources/demo/README.md", () => {
    const readme = readFileSync(join(process.cwd(), "resources/demo/README.md"), "utf8")
    const example = /```jsonl\n([\s\S]*?)```/.exec(readme)?.[1]
    assert.isDefined(example)
    const parsed = Scripted.parse("README.md", example!)
    assert.isTrue(Result.isSuccess(parsed))
    assert.deepStrictEqual(
      Result.map(parsed, (script) => script.turns.map((turn) => [turn.line, turn.toolCalls.map((call) => call.id)])),
      Result.succeed([
        [2, ["call_1_0", "call_1_1"]],
        [3, ["call_2_0"]],
        [4, []],
      ]),
    )
  })
})
