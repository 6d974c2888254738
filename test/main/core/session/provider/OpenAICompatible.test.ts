import { createServer } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import fc from "fast-check"
import type { Config } from "@core/config/Config"
import { OpenAICompatible } from "@core/session/provider/OpenAICompatible"
import { Provider } from "@core/session/provider/Provider"
import type { Tool } from "@core/tool/Tool"
import {
  callDelta,
  chunk,
  completion,
  errorReply,
  hangReply,
  jsonReply,
  openAIServer,
  rawReply,
  sseText,
  startOpenAIServer,
  streamReply,
  textChunks,
  type OpenAIServer,
} from "../../../../support/openai-server"

const make = (server: OpenAIServer, config: Partial<Config.ProviderConfig> = {}, options?: OpenAICompatible.Options) =>
  OpenAICompatible.make(
    { type: "openai-compatible", base_url: server.baseUrl, model: "test-model", ...config },
    options,
  )

const readDefinition: Tool.Definition = {
  name: "read",
  description: "Read a file",
  inputSchema: { type: "object", properties: { filePath: { type: "string" } }, required: ["filePath"] },
  outputSchema: { type: "string" },
}

const hello: Provider.Request = {
  messages: [
    { role: "system", text: "Be brief." },
    { role: "user", text: "Say hello." },
  ],
  tools: [readDefinition],
  toolChoice: "auto",
}

const url = (server: OpenAIServer) => `${server.baseUrl}/chat/completions`

describe("OpenAICompatible", () => {
  it.effect("returns the text and usage of a non-streamed completion", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(jsonReply(completion({ text: "Hello!", message: { reasoning_content: "easy" } })))
      const provider = yield* make(server)
      const turn = yield* provider.turn(hello)
      assert.deepStrictEqual(turn, {
        text: "Hello!",
        toolCalls: [],
        finishReason: "stop",
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      })
    }),
  )

  it.effect("returns non-streamed tool calls with their parsed input, without usage when the server sends none", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(
        jsonReply(
          completion({
            toolCalls: [
              { id: "call_1", name: "read", arguments: { filePath: "a.ts" } },
              { id: "call_2", name: "bash", arguments: '{"command": "ls' },
              { id: "call_3", name: "todoread", arguments: "" },
            ],
            usage: null,
          }),
        ),
      )
      const provider = yield* make(server)
      const turn = yield* provider.turn(hello)
      assert.deepStrictEqual(turn, {
        text: "",
        toolCalls: [
          { id: "call_1", name: "read", input: { filePath: "a.ts" } },
          {
            id: "call_2",
            name: "bash",
            input: '{"command": "ls',
            inputError: 'the arguments are not valid JSON: {"command": "ls',
          },
          { id: "call_3", name: "todoread", input: {} },
        ],
        finishReason: "tool-calls",
      })
    }),
  )

  it.effect("assembles streamed text deltas", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(
        streamReply([": OPENROUTER PROCESSING\n\n", ...textChunks("Hel", "lo, ", "wörld 🌍")], { delayMs: 1 }),
      )
      const provider = yield* make(server, { stream: true })
      const turn = yield* provider.turn(hello)
      assert.deepStrictEqual(turn, { text: "Hello, wörld 🌍", toolCalls: [], finishReason: "stop" })
      assert.strictEqual((server.requests[0]!.body as { stream: boolean }).stream, true)
      assert.strictEqual(server.requests[0]!.headers.accept, "text/event-stream")
    }),
  )

  it.effect("assembles two parallel streamed tool calls whose argument deltas interleave by index", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(
        streamReply(
          [
            chunk({ role: "assistant", content: null, reasoning_content: "I should look." }),
            chunk({ content: "Looking." }),
            chunk({ tool_calls: [callDelta(0, { id: "call_a", name: "read", arguments: "" })] }),
            chunk({ tool_calls: [callDelta(1, { id: "call_b", name: "grep", arguments: '{"pat' })] }),
            chunk({ tool_calls: [callDelta(0, { arguments: '{"filePath"' })] }),
            chunk({ tool_calls: [callDelta(1, { arguments: 'tern": "TODO"' })] }),
            chunk({ tool_calls: [callDelta(0, { arguments: ': "src/a.ts"}' })] }),
            chunk({ tool_calls: [callDelta(1, { arguments: "}" })] }),
            chunk({}, "tool_calls"),
            { id: "chatcmpl-test", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 7 } },
          ],
          { delayMs: 1 },
        ),
      )
      const provider = yield* make(server, { stream: true })
      const turn = yield* provider.turn(hello)
      assert.deepStrictEqual(turn, {
        text: "Looking.",
        toolCalls: [
          { id: "call_a", name: "read", input: { filePath: "src/a.ts" } },
          { id: "call_b", name: "grep", input: { pattern: "TODO" } },
        ],
        finishReason: "tool-calls",
        usage: { inputTokens: 7 },
      })
    }),
  )

  it.effect("sends the conversation, tool results, images, tools, model and key in the OpenAI shape", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(jsonReply(completion({ text: "ok" })))
      const provider = yield* make(server, { api_key: "sk-test" })
      const png = "data:image/png;base64,iVBORw0KGgo="
      yield* provider.turn({
        messages: [
          { role: "system", text: "Be brief." },
          { role: "user", text: "Look around." },
          {
            role: "assistant",
            text: "Reading.",
            toolCalls: [
              { id: "c1", name: "read", input: { filePath: "logo.png" } },
              { id: "c2", name: "bash", input: { command: "ls" } },
              { id: "c3", name: "edit", input: '{"broken', inputError: "the arguments are not valid JSON" },
              { id: "c4", name: "todowrite", input: { todos: [] } },
            ],
          },
          {
            role: "tool",
            toolCallId: "c1",
            name: "read",
            result: {
              type: "content",
              value: [
                { type: "text", text: "Image read successfully" },
                { type: "file", uri: png, mime: "image/png", name: "logo.png" },
                { type: "file", uri: "data:application/pdf;base64,JVBER", mime: "application/pdf" },
              ],
            },
          },
          { role: "tool", toolCallId: "c2", name: "bash", result: { type: "text", value: "README.md" } },
          { role: "tool", toolCallId: "c3", name: "edit", result: { type: "error", value: "Invalid tool input" } },
          { role: "tool", toolCallId: "c4", name: "todowrite", result: { type: "json", value: { todos: [] } } },
        ],
        tools: [readDefinition],
        toolChoice: "auto",
      })
      const request = server.requests[0]!
      assert.strictEqual(request.path, "/v1/chat/completions")
      assert.strictEqual(request.headers.authorization, "Bearer sk-test")
      assert.strictEqual(request.headers["content-type"], "application/json")
      assert.deepStrictEqual(request.body, {
        model: "test-model",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Look around." },
          {
            role: "assistant",
            content: "Reading.",
            tool_calls: [
              { id: "c1", type: "function", function: { name: "read", arguments: '{"filePath":"logo.png"}' } },
              { id: "c2", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
              { id: "c3", type: "function", function: { name: "edit", arguments: '{"broken' } },
              { id: "c4", type: "function", function: { name: "todowrite", arguments: '{"todos":[]}' } },
            ],
          },
          {
            role: "tool",
            tool_call_id: "c1",
            content:
              "Image read successfully\n[image logo.png: attached in the next message]\n[file application/pdf (application/pdf) not shown: only text and images reach the model]",
          },
          { role: "tool", tool_call_id: "c2", content: "README.md" },
          { role: "tool", tool_call_id: "c3", content: "Error: Invalid tool input" },
          { role: "tool", tool_call_id: "c4", content: '{"todos":[]}' },
          {
            role: "user",
            content: [
              { type: "text", text: "Image logo.png from the read result c1:" },
              { type: "image_url", image_url: { url: png } },
            ],
          },
        ],
        tools: [
          {
            type: "function",
            function: { name: "read", description: "Read a file", parameters: readDefinition.inputSchema },
          },
        ],
        tool_choice: "auto",
        stream: false,
      })
    }),
  )

  it.effect("sends neither tools nor tool_choice when tools are disabled, and no Authorization without a key", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(jsonReply(completion({ text: "done" })))
      const provider = yield* make(server, { model: "llama3.2" })
      yield* provider.turn({ ...hello, toolChoice: "none" })
      const request = server.requests[0]!
      assert.deepStrictEqual(request.body, {
        model: "llama3.2",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Say hello." },
        ],
        stream: false,
      })
      assert.isUndefined(request.headers.authorization)
    }),
  )

  it.effect("reads the key from api_key_env when made, and names a missing variable", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(jsonReply(completion({ text: "ok" })))
      const provider = yield* make(server, { api_key_env: "TEST_OPENAI_KEY" }, { env: { TEST_OPENAI_KEY: "sk-env" } })
      yield* provider.turn(hello)
      assert.strictEqual(server.requests[0]!.headers.authorization, "Bearer sk-env")
      const missing = yield* Effect.flip(
        make(server, { api_key_env: "TEST_OPENAI_KEY" }, { env: {}, name: "openrouter" }),
      )
      assert.instanceOf(missing, Provider.ConfigError)
      assert.strictEqual(
        missing.message,
        "Cannot use provider openrouter: the environment variable TEST_OPENAI_KEY (api_key_env) is not set",
      )
      const empty = yield* Effect.flip(make(server, { api_key_env: "K" }, { env: { K: " " } }))
      assert.strictEqual(
        empty.message,
        "Cannot use provider openai-compatible: the environment variable K (api_key_env) is empty",
      )
    }),
  )

  it.effect("refuses a configuration without base_url or model, or with a URL that is not http", () =>
    Effect.gen(function* () {
      const reasons = yield* Effect.forEach(
        [
          { type: "openai-compatible" as const, model: "m" },
          { type: "openai-compatible" as const, base_url: "ftp://example.com/v1", model: "m" },
          { type: "openai-compatible" as const, base_url: "http://127.0.0.1:1/v1" },
          {
            type: "openai-compatible" as const,
            base_url: "http://127.0.0.1:1/v1",
            model: "m",
            api_key: "a",
            api_key_env: "B",
          },
        ],
        (config) => Effect.flip(OpenAICompatible.make(config)).pipe(Effect.map((error) => error.reason)),
      )
      assert.deepStrictEqual(reasons, [
        "base_url is required for an openai-compatible provider",
        "base_url must be an http or https URL, got ftp://example.com/v1",
        "model is required for an openai-compatible provider",
        "set api_key or api_key_env, not both",
      ])
    }),
  )

  it.effect("fails with the status and the server's message on HTTP 401, 429 and 500", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(
        errorReply(401, { error: { message: "Incorrect API key provided: sk-te***", type: "invalid_request_error" } }),
        errorReply(429, { error: { message: "Rate limit reached for requests" } }),
        {
          type: "error",
          status: 500,
          statusText: "Internal Server Error",
          body: "<html>\n  <h1>upstream   failed</h1>\n</html>",
        },
      )
      const provider = yield* make(server, { api_key: "sk-test" })
      const errors = yield* Effect.forEach([1, 2, 3], () => Effect.flip(provider.turn(hello)))
      assert.deepStrictEqual(
        errors.map((error) => [error.kind, error.status, error.message]),
        [
          [
            "http",
            401,
            `openai-compatible request to ${url(server)} failed: HTTP 401 Unauthorized: Incorrect API key provided: sk-te***`,
          ],
          [
            "http",
            429,
            `openai-compatible request to ${url(server)} failed: HTTP 429 Too Many Requests: Rate limit reached for requests`,
          ],
          [
            "http",
            500,
            `openai-compatible request to ${url(server)} failed: HTTP 500 Internal Server Error: <html> <h1>upstream failed</h1> </html>`,
          ],
        ],
      )
      assert.instanceOf(errors[0], Provider.ProviderError)
    }),
  )

  it.effect("fails with a network error when the connection is refused", () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(freePort)
      const provider = yield* OpenAICompatible.make({
        type: "openai-compatible",
        base_url: `http://127.0.0.1:${port}/v1/`,
        model: "m",
      })
      const error = yield* Effect.flip(provider.turn(hello))
      assert.strictEqual(error.kind, "network")
      assert.strictEqual(
        error.message,
        `openai-compatible request to http://127.0.0.1:${port}/v1/chat/completions failed: connection refused (ECONNREFUSED)`,
      )
    }),
  )

  it.effect("fails with a malformed error when the response is not JSON or not a completion", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(
        rawReply("<html>Bad gateway</html>", "text/html"),
        jsonReply({ object: "chat.completion", choices: [] }),
        jsonReply({ choices: "many" }),
        jsonReply({ error: { message: "model not loaded" } }),
      )
      const provider = yield* make(server)
      const errors = yield* Effect.forEach([1, 2, 3, 4], () => Effect.flip(provider.turn(hello)))
      const prefix = `openai-compatible request to ${url(server)} failed: `
      assert.deepStrictEqual(
        errors.map((error) => [error.kind, error.message.replace(prefix, "")]),
        [
          ["malformed", "the response is not JSON: <html>Bad gateway</html>"],
          ["malformed", 'the response has no choices: {"object":"chat.completion","choices":[]}'],
          ["malformed", "the response is not a chat completion: choices: Expected array | null"],
          ["http", "the server reported an error: model not loaded"],
        ],
      )
    }),
  )

  it.effect("fails when a stream event is not JSON, reports an error event, or stops before [DONE]", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(
        streamReply([chunk({ content: "Hi" }), "data: {not json\n\n"]),
        streamReply([chunk({ content: "Hi" }), { error: { message: "upstream overloaded" } }]),
        streamReply([chunk({ content: "Hi" })], { done: false }),
        streamReply([chunk({ content: "Hi" }), 'event: error\ndata: {"error": {"message": "quota"}}\n\n']),
      )
      const provider = yield* make(server, { stream: true })
      const errors = yield* Effect.forEach([1, 2, 3, 4], () => Effect.flip(provider.turn(hello)))
      const prefix = `openai-compatible request to ${url(server)} failed: `
      assert.deepStrictEqual(
        errors.map((error) => [error.kind, error.message.replace(prefix, "")]),
        [
          ["malformed", "a stream event is not JSON: {not json"],
          ["http", "the server reported an error in the stream: upstream overloaded"],
          ["malformed", "the stream ended before [DONE] and without a finish_reason"],
          ["http", "the server reported an error in the stream: quota"],
        ],
      )
    }),
  )

  it.effect("fails with a network error when the connection drops in the middle of a stream", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(streamReply([chunk({ content: "Hel" })], { done: false, end: "destroy" }))
      const provider = yield* make(server, { stream: true })
      const error = yield* Effect.flip(provider.turn(hello))
      assert.strictEqual(error.kind, "network")
      assert.strictEqual(
        error.message,
        `openai-compatible request to ${url(server)} failed: the server closed the connection before the response was complete (UND_ERR_SOCKET)`,
      )
    }),
  )

  it.effect("aborts the request in flight when the turn is interrupted", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(hangReply(), streamReply([chunk({ content: "Hel" })], { done: false, end: "hang" }))
      const waiting = yield* make(server)
      const fiber = yield* Effect.forkChild(waiting.turn(hello))
      const first = yield* Effect.promise(() => server.request(1))
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(yield* Effect.promise(() => first.closed), { complete: false })
      // Also while the body is being read.
      const streaming = yield* make(server, { stream: true })
      const reading = yield* Effect.forkChild(streaming.turn(hello))
      const second = yield* Effect.promise(() => server.request(2))
      yield* Fiber.interrupt(reading)
      assert.deepStrictEqual(yield* Effect.promise(() => second.closed), { complete: false })
    }),
  )

  it.live("fails with a network error when the server stays silent longer than the timeout", () =>
    Effect.gen(function* () {
      const server = yield* openAIServer()
      server.enqueue(hangReply())
      const provider = yield* make(server, {}, { timeout: "100 millis" })
      const error = yield* Effect.flip(provider.turn(hello))
      assert.strictEqual(error.message, `openai-compatible request to ${url(server)} failed: no response within 100ms`)
      assert.deepStrictEqual(yield* Effect.promise(() => server.requests[0]!.closed), { complete: false })
    }),
  )

  it("assembles the same streamed turn however the server's writes cut the stream", async () => {
    const server = await startOpenAIServer()
    try {
      const body = sseText([
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "Prüfe 🌍 " }),
        chunk({ tool_calls: [callDelta(0, { id: "call_a", name: "read", arguments: '{"filePath":' })] }),
        chunk({ tool_calls: [callDelta(1, { id: "call_b", name: "glob", arguments: '{"pattern":"**/*.ts"}' })] }),
        chunk({ tool_calls: [callDelta(0, { arguments: '"ä.ts"}' })] }),
        chunk({}, "tool_calls"),
      ])
      const bytes = new TextEncoder().encode(body)
      const provider = await Effect.runPromise(make(server, { stream: true }))
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }),
          async (cuts) => {
            const points = [0, ...[...cuts].sort((a, b) => a - b), bytes.length]
            const pieces = points.slice(1).map((end, index) => bytes.subarray(points[index], end))
            server.enqueue(streamReply(pieces, { done: false, delayMs: 1 }))
            const turn = await Effect.runPromise(provider.turn(hello))
            assert.deepStrictEqual(turn, {
              text: "Prüfe 🌍 ",
              toolCalls: [
                { id: "call_a", name: "read", input: { filePath: "ä.ts" } },
                { id: "call_b", name: "glob", input: { pattern: "**/*.ts" } },
              ],
              finishReason: "tool-calls",
            })
          },
        ),
        { numRuns: 15 },
      )
    } finally {
      await server.close()
    }
  })
})

/** A loopback port with nothing listening on it. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
}
