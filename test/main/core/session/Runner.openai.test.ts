import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Runner } from "@core/session/Runner"
import { ToolCalls } from "@core/session/ToolCalls"
import { makeTempDir } from "../../../support/temp"
import {
  callDelta,
  chunk,
  completion,
  errorReply,
  jsonReply,
  MODEL,
  openAIServer,
  streamReply,
} from "../../../support/openai-server"
import { runnerTestLayer } from "./Runner.support"

const project = () => {
  const directory = makeTempDir("gatehouse-runner-")
  writeFileSync(join(directory, "notes.txt"), "hello world\n")
  return directory
}

interface WireMessage {
  readonly role: string
  readonly content?: unknown
  readonly tool_call_id?: string
}
const messagesOf = (body: unknown) => (body as { messages: ReadonlyArray<WireMessage> }).messages

describe("Runner with an OpenAI-compatible provider", () => {
  it.live("drives a real tool from streamed tool-call deltas and sends its result back", () => {
    const directory = project()
    return Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(
        streamReply([
          chunk({ role: "assistant", content: "" }),
          chunk({ tool_calls: [callDelta(0, { id: "call_read", name: "read", arguments: "" })] }),
          chunk({ tool_calls: [callDelta(0, { arguments: '{"pa' })] }),
          chunk({ tool_calls: [callDelta(0, { arguments: 'th": "notes.txt"}' })] }),
          chunk({}, "tool_calls"),
        ]),
        jsonReply(completion({ text: "The file greets the world." })),
      )
      const runner = yield* Runner.Service
      const calls = yield* ToolCalls.Service
      const session = yield* runner.start({
        directory,
        prompt: "What does notes.txt say?",
        provider: { type: "openai-compatible", base_url: server.baseUrl, model: MODEL, stream: true },
      })
      assert.strictEqual(session.provider, "openai-compatible")
      const ended = yield* runner.wait(session.id)
      assert.strictEqual(ended.status, "idle", ended.reason)

      const first = (yield* Effect.promise(() => server.request(1))).body as {
        tools: ReadonlyArray<{ function: { name: string } }>
        tool_choice: string
        stream: boolean
      }
      assert.includeMembers(
        first.tools.map((tool) => tool.function.name),
        ["read", "edit", "bash"],
      )
      assert.strictEqual(first.tool_choice, "auto")
      assert.isTrue(first.stream)
      assert.deepInclude(messagesOf(first), { role: "user", content: "What does notes.txt say?" })

      const second = messagesOf((yield* Effect.promise(() => server.request(2))).body)
      const result = second.find((message) => message.role === "tool")
      assert.strictEqual(result?.tool_call_id, "call_read")
      assert.include(String(result?.content), "hello world")

      const [call] = yield* calls.forSession(session.id)
      assert.deepStrictEqual(
        [call!.callID, call!.tool, call!.status, call!.input],
        ["call_read", "read", "completed", { path: "notes.txt" }],
      )
    }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir() })))
  })

  it.live("answers a call whose arguments are not JSON as invalid input without running the tool", () => {
    const directory = project()
    return Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(
        jsonReply(
          completion({ toolCalls: [{ id: "call_bad", name: "edit", arguments: '{"path": "notes.txt", "oldStr' }] }),
        ),
        jsonReply(completion({ text: "Sorry." })),
      )
      const runner = yield* Runner.Service
      const calls = yield* ToolCalls.Service
      const session = yield* runner.start({
        directory,
        prompt: "Edit it",
        provider: { type: "openai-compatible", base_url: server.baseUrl, model: MODEL },
      })
      const ended = yield* runner.wait(session.id)
      assert.strictEqual(ended.status, "idle", ended.reason)
      const [call] = yield* calls.forSession(session.id)
      assert.strictEqual(call!.status, "error")
      assert.match(call!.error!, /^Invalid tool input: the arguments are not valid JSON/)
      assert.strictEqual(call!.input, '{"path": "notes.txt", "oldStr')
      const second = messagesOf((yield* Effect.promise(() => server.request(2))).body)
      const result = second.find((message) => message.role === "tool")
      assert.match(String(result?.content), /^Error: Invalid tool input: the arguments are not valid JSON/)
      assert.strictEqual(readFileSync(join(directory, "notes.txt"), "utf8"), "hello world\n")
    }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir() })))
  })

  it.live("fails the session with the server's error when a configured provider answers HTTP 401", () => {
    const directory = project()
    return Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(errorReply(401, { error: { message: "Incorrect API key provided" } }))
      const config = {
        providers: { local: { type: "openai-compatible" as const, base_url: server.baseUrl, model: MODEL } },
      }
      yield* Effect.gen(function* () {
        const runner = yield* Runner.Service
        const session = yield* runner.start({
          directory,
          prompt: "Hi",
          provider: { type: "openai-compatible", name: "local" },
        })
        assert.strictEqual(session.provider, "local")
        const ended = yield* runner.wait(session.id)
        assert.strictEqual(ended.status, "failed")
        assert.include(ended.reason!, "HTTP 401")
        assert.include(ended.reason!, "Incorrect API key provided")
      }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir(), config })))
    })
  })
})
