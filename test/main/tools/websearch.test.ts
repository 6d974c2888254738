import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import fc from "fast-check"
import type { Config } from "@core/config/Config"
import { newId } from "@core/id/Identifier"
import { parseResponse } from "@main/tools/support/mcpSearch"
import { WebSearchTool } from "@main/tools/websearch"
import { autoAnswer, locationTestLayer, makeSession } from "../../support/location"
import { makeTempDir } from "../../support/temp"
import { errorText, registered, resultText } from "./support/registered"
import { localServer, type Handler, type LocalServer } from "./support/server"

const root = makeTempDir()
const directory = join(root, "project")
mkdirSync(directory)
const askEverything: Config.GatehouseConfig = {
  agents: { build: [{ action: "*", resource: "*", effect: "ask" }] },
}
const layer = (config: Config.GatehouseConfig = askEverything) =>
  locationTestLayer({ dataDir: makeTempDir(), directory, config })

const rpc = (content: ReadonlyArray<{ type: string; text?: string }>, extra: object = {}) => ({
  jsonrpc: "2.0",
  id: 1,
  result: { content, ...extra },
})

const json =
  (body: unknown, status = 200): Handler =>
  (_request, res) => {
    res.writeHead(status, { "content-type": "application/json" })
    res.end(typeof body === "string" ? body : JSON.stringify(body))
  }

const sse =
  (...events: ReadonlyArray<unknown>): Handler =>
  (_request, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" })
    for (const event of events) res.write(`event: message\ndata: ${JSON.stringify(event)}\n\n`)
    res.end()
  }

/** The environment that points both providers at the test server. */
const envFor = (server: LocalServer, extra: Record<string, string> = {}) => ({
  EXA_API_KEY: "exa-key",
  PARALLEL_API_KEY: "parallel-key",
  GATEHOUSE_EXA_URL: server.url("/exa/mcp"),
  GATEHOUSE_PARALLEL_URL: server.url("/parallel/mcp"),
  ...extra,
})

const setup = (
  handler: Handler,
  env: (server: LocalServer) => Record<string, string>,
  options: Omit<WebSearchTool.Options, "env"> = {},
) =>
  Effect.gen(function* () {
    const session = yield* makeSession()
    const asks = yield* autoAnswer(() => ({ reply: "once" }))
    const server = yield* localServer(handler)
    const tool = yield* WebSearchTool.makeWith({ ...options, env: env(server) })
    const searcher = yield* registered(WebSearchTool.name, tool, session.id)
    return { session, asks, server, ...searcher }
  })

describe("WebSearchTool", () => {
  it.effect("asks websearch for the query, then calls web_search_exa with the key and the defaults", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { session, asks, server, settle } = yield* setup(
          json(
            rpc([
              { type: "text", text: "" },
              { type: "image" },
              { type: "text", text: "Result A" },
              { type: "text", text: "B" },
            ]),
          ),
          (server) => envFor(server, { OPENCODE_WEBSEARCH_PROVIDER: "exa" }),
        )
        const settlement = yield* settle({ query: "effect 4 schema" })
        assert.strictEqual(resultText(settlement), "Result A")
        assert.deepStrictEqual(settlement.output?.structured, { provider: "exa", text: "Result A", truncated: false })
        assert.deepStrictEqual(
          asks.map((ask) => [ask.action, ask.resources, ask.save, ask.metadata, ask.sessionID]),
          [["websearch", ["effect 4 schema"], ["*"], { query: "effect 4 schema", provider: "exa" }, session.id]],
        )
        const [request] = server.requests
        assert.strictEqual(request!.method, "POST")
        assert.strictEqual(request!.path, "/exa/mcp?exaApiKey=exa-key")
        assert.strictEqual(request!.headers.accept, "application/json, text/event-stream")
        assert.strictEqual(request!.headers["content-type"], "application/json")
        assert.deepStrictEqual(JSON.parse(request!.body), {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "web_search_exa",
            arguments: { query: "effect 4 schema", type: "auto", numResults: 8, livecrawl: "fallback" },
          },
        })

        yield* settle({ query: "q", numResults: 3, livecrawl: "preferred", type: "deep", contextMaxCharacters: 1000 })
        assert.deepStrictEqual(JSON.parse(server.requests[1]!.body).params.arguments, {
          query: "q",
          type: "deep",
          numResults: 3,
          livecrawl: "preferred",
          contextMaxCharacters: 1000,
        })
        assert.deepStrictEqual(asks[1]?.metadata, {
          query: "q",
          numResults: 3,
          livecrawl: "preferred",
          type: "deep",
          contextMaxCharacters: 1000,
          provider: "exa",
        })
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("calls Parallel's web_search with its bearer key and User-Agent and reads an SSE answer", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { session, server, settle } = yield* setup(
          sse(
            { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } },
            rpc([{ type: "text", text: "" }]),
            rpc([{ type: "text", text: "Parallel result" }]),
          ),
          (server) => envFor(server, { OPENCODE_ENABLE_PARALLEL: "1" }),
        )
        const settlement = yield* settle({ query: "loopback servers" })
        assert.deepStrictEqual(settlement.output?.structured, {
          provider: "parallel",
          text: "Parallel result",
          truncated: false,
        })
        const [request] = server.requests
        assert.strictEqual(request!.path, "/parallel/mcp")
        assert.strictEqual(request!.headers.authorization, "Bearer parallel-key")
        assert.strictEqual(request!.headers["user-agent"], "gatehouse/0.0.0-test")
        assert.deepStrictEqual(JSON.parse(request!.body).params, {
          name: "web_search",
          arguments: { objective: "loopback servers", search_queries: ["loopback servers"], session_id: session.id },
        })
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("says no results were found when no text item has text", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { settle } = yield* setup(json(rpc([{ type: "text", text: "" }])), (server) =>
          envFor(server, { OPENCODE_WEBSEARCH_PROVIDER: "exa" }),
        )
        assert.strictEqual(
          resultText(yield* settle({ query: "nothing" })),
          "No search results found. Please try a different query.",
        )
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("names the missing key before asking or sending anything", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* makeSession()
        const asks = yield* autoAnswer(() => ({ reply: "once" }))
        const server = yield* localServer(json(rpc([{ type: "text", text: "x" }])))
        const exa = yield* WebSearchTool.makeWith({
          env: { OPENCODE_WEBSEARCH_PROVIDER: "exa", PARALLEL_API_KEY: "p" },
        })
        const parallel = yield* WebSearchTool.makeWith({
          env: { OPENCODE_WEBSEARCH_PROVIDER: "parallel", EXA_API_KEY: "e" },
        })
        const viaExa = yield* registered("websearch", exa, session.id)
        assert.strictEqual(
          errorText(yield* viaExa.settle({ query: "q" })),
          "Unable to search the web for q: EXA_API_KEY is not set; the exa web search provider needs it",
        )
        const viaParallel = yield* registered("websearch", parallel, session.id)
        assert.strictEqual(
          errorText(yield* viaParallel.settle({ query: "q" })),
          "Unable to search the web for q: PARALLEL_API_KEY is not set; the parallel web search provider needs it",
        )
        assert.strictEqual(asks.length, 0)
        assert.strictEqual(server.requests.length, 0)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("reports HTTP statuses, JSON-RPC errors, tool errors and garbage with the tool's name", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const replies: Record<string, Handler> = {
          status: json({ error: "unauthorized" }, 401),
          rpc: json({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad arguments" } }),
          tool: json(rpc([{ type: "text", text: "Invalid API key" }], { isError: true })),
          garbage: json("{ not json"),
        }
        const { settle } = yield* setup(
          (request, res, raw) => replies[JSON.parse(request.body).params.arguments.query]!(request, res, raw),
          (server) => envFor(server, { OPENCODE_WEBSEARCH_PROVIDER: "exa" }),
        )
        const failure = (query: string) => settle({ query }).pipe(Effect.map(errorText))
        assert.strictEqual(
          yield* failure("status"),
          "Unable to search the web for status: web_search_exa request failed with status code 401",
        )
        assert.strictEqual(
          yield* failure("rpc"),
          "Unable to search the web for rpc: web_search_exa returned an error: bad arguments",
        )
        assert.strictEqual(
          yield* failure("tool"),
          "Unable to search the web for tool: web_search_exa failed: Invalid API key",
        )
        assert.strictEqual(
          yield* failure("garbage"),
          "Unable to search the web for garbage: web_search_exa returned an invalid response",
        )
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("accepts a 256 KiB answer and refuses one byte more, announced or chunked", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const limit = 256 * 1024
        const answer = (size: number) => {
          const shell = JSON.stringify(rpc([{ type: "text", text: "" }]))
          return JSON.stringify(rpc([{ type: "text", text: "x".repeat(size - shell.length) }]))
        }
        const { settle } = yield* setup(
          (request, res) => {
            const query: string = JSON.parse(request.body).params.arguments.query
            const body = Buffer.from(answer(query.startsWith("exact") ? limit : limit + 1))
            if (query.endsWith("chunked")) {
              res.writeHead(200, { "content-type": "application/json" })
              for (let offset = 0; offset < body.length; offset += 16 * 1024)
                res.write(body.subarray(offset, offset + 16 * 1024))
              res.end()
            } else res.writeHead(200, { "content-type": "application/json", "content-length": body.length }).end(body)
          },
          (server) => envFor(server, { OPENCODE_WEBSEARCH_PROVIDER: "exa" }),
        )
        // Over 50 KB the model reads a preview; the structured output keeps the whole text.
        const textOf = (settlement: { readonly output?: { readonly structured: unknown } }) =>
          (settlement.output?.structured as WebSearchTool.Output).text
        const expected = limit - JSON.stringify(rpc([{ type: "text", text: "" }])).length
        assert.strictEqual(Buffer.byteLength(answer(limit)), limit)
        assert.strictEqual(textOf(yield* settle({ query: "exact" })).length, expected)
        assert.strictEqual(textOf(yield* settle({ query: "exact chunked" })).length, expected)
        assert.strictEqual(
          errorText(yield* settle({ query: "over" })),
          "Unable to search the web for over: web_search_exa response exceeded 262144 bytes",
        )
        assert.strictEqual(
          errorText(yield* settle({ query: "over chunked" })),
          "Unable to search the web for over chunked: web_search_exa response exceeded 262144 bytes",
        )
      }),
    ).pipe(Effect.provide(layer())),
  )

  // Live clock: the timeout is real time; the tool is made with a short one.
  it.live("times out a provider that does not answer", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { settle } = yield* setup(
          () => undefined,
          (server) => envFor(server, { OPENCODE_WEBSEARCH_PROVIDER: "parallel" }),
          { timeout: "200 millis" },
        )
        assert.strictEqual(
          errorText(yield* settle({ query: "slow" })),
          "Unable to search the web for slow: web_search request timed out",
        )
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("sends nothing when the query is denied and passes a rejection's feedback", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* makeSession()
        yield* autoAnswer(() => ({ reply: "reject", message: "search the local docs instead" }))
        const server = yield* localServer(json(rpc([{ type: "text", text: "x" }])))
        const tool = yield* WebSearchTool.makeWith({ env: envFor(server, { OPENCODE_WEBSEARCH_PROVIDER: "exa" }) })
        const { settle } = yield* registered(WebSearchTool.name, tool, session.id)
        assert.strictEqual(
          errorText(yield* settle({ query: "secret plans" })),
          "Unable to search the web for secret plans: Permission denied: websearch",
        )
        assert.strictEqual(
          errorText(yield* settle({ query: "ok" })),
          "Unable to search the web for ok: The user rejected permission to use this specific tool call with the following feedback: search the local docs instead",
        )
        assert.strictEqual(server.requests.length, 0)
      }),
    ).pipe(
      Effect.provide(
        layer({
          agents: {
            build: [
              { action: "*", resource: "*", effect: "ask" },
              { action: "websearch", resource: "secret*", effect: "deny" },
            ],
          },
        }),
      ),
    ),
  )

  it.effect("picks the provider by override, then flags, then a stable session parity", () =>
    Effect.sync(() => {
      const select = (env: Record<string, string>, sessionID = "ses_x") =>
        WebSearchTool.selectProvider(sessionID, WebSearchTool.settingsFrom(env))
      assert.strictEqual(select({ OPENCODE_WEBSEARCH_PROVIDER: "exa", OPENCODE_ENABLE_PARALLEL: "1" }), "exa")
      assert.strictEqual(select({ OPENCODE_WEBSEARCH_PROVIDER: "parallel", OPENCODE_ENABLE_EXA: "true" }), "parallel")
      assert.strictEqual(select({ OPENCODE_ENABLE_PARALLEL: "1", OPENCODE_ENABLE_EXA: "1" }), "parallel")
      assert.strictEqual(select({ OPENCODE_EXPERIMENTAL_PARALLEL: "TRUE", OPENCODE_EXPERIMENTAL: "1" }), "parallel")
      for (const flag of ["OPENCODE_EXPERIMENTAL", "OPENCODE_ENABLE_EXA", "OPENCODE_EXPERIMENTAL_EXA"])
        assert.strictEqual(select({ [flag]: "true" }, "ses_odd"), "exa")
      assert.strictEqual(select({ OPENCODE_ENABLE_PARALLEL: "yes" }, "ses_b"), select({}, "ses_b"))
      // FNV-1a (32 bit): "a" → 0xe40c292c (even), "b" → 0xe70c2de5 (odd).
      assert.strictEqual(WebSearchTool.checksum("a"), 0xe40c292c)
      assert.strictEqual(WebSearchTool.checksum("b"), 0xe70c2de5)
      assert.strictEqual(select({}, "a"), "exa")
      assert.strictEqual(select({}, "b"), "parallel")
      assert.strictEqual(select({ OPENCODE_WEBSEARCH_PROVIDER: "bing" }, "b"), "parallel")
      const ids = Array.from({ length: 64 }, () => newId.session())
      const picks = ids.map((id) => select({}, id))
      assert.deepStrictEqual(
        ids.map((id) => select({}, id)),
        picks,
      )
      assert.includeMembers(picks, ["exa", "parallel"])
    }),
  )

  it.effect("sends each session to its parity's provider when nothing is configured", () =>
    Effect.scoped(
      Effect.gen(function* () {
        yield* autoAnswer(() => ({ reply: "once" }))
        const server = yield* localServer(json(rpc([{ type: "text", text: "found" }])))
        const tool = yield* WebSearchTool.makeWith({ env: envFor(server) })
        const seen = new Set<string>()
        while (seen.size < 2) {
          const session = yield* makeSession()
          const { settle } = yield* registered(`websearch_${seen.size}`, tool, session.id)
          const provider = ((yield* settle({ query: "q" })).output?.structured as WebSearchTool.Output).provider
          assert.strictEqual(provider, WebSearchTool.checksum(session.id) % 2 === 0 ? "exa" : "parallel")
          assert.strictEqual(server.requests.at(-1)!.path.startsWith(`/${provider}/mcp`), true)
          seen.add(provider)
        }
      }),
    ).pipe(Effect.provide(layer())),
  )

  it("parses JSON and SSE bodies: the first non-empty text item wins", () => {
    const tool = "web_search_exa"
    assert.deepStrictEqual(parseResponse(tool, ""), { text: undefined })
    assert.deepStrictEqual(parseResponse(tool, JSON.stringify(rpc([{ type: "text", text: "a" }]))), { text: "a" })
    assert.deepStrictEqual(
      parseResponse(
        tool,
        `: comment\r\nevent: message\r\ndata: ${JSON.stringify(rpc([{ type: "text", text: "b" }]))}\r\n\r\n`,
      ),
      { text: "b" },
    )
    assert.deepStrictEqual(parseResponse(tool, "data: [DONE]\n\n"), { text: undefined })
    assert.deepStrictEqual(parseResponse(tool, "data: {oops\n\n"), {
      failure: "web_search_exa returned an invalid response",
    })
  })

  it.live("never runs the executor for random undecodable input and never crashes", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { server, settle, asks } = yield* setup(json(rpc([{ type: "text", text: "r" }])), (server) =>
          envFor(server, { OPENCODE_WEBSEARCH_PROVIDER: "exa" }),
        )
        const decodes = (input: unknown) =>
          Exit.isSuccess(Schema.decodeUnknownExit(Schema.toCodecJson(WebSearchTool.Input))(input))
        const input = fc.oneof(
          fc.jsonValue(),
          fc.record(
            {
              query: fc.oneof(fc.string(), fc.jsonValue()),
              numResults: fc.oneof(fc.integer({ min: -2, max: 25 }), fc.double(), fc.jsonValue()),
              livecrawl: fc.oneof(fc.constantFrom("fallback", "preferred", "never"), fc.jsonValue()),
              type: fc.oneof(fc.constantFrom("auto", "fast", "deep", "slow"), fc.jsonValue()),
              contextMaxCharacters: fc.oneof(fc.integer({ min: -1, max: 60_000 }), fc.jsonValue()),
            },
            { requiredKeys: [] },
          ),
        )
        const context = yield* Effect.context<never>()
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(input, async (value) => {
              const asksBefore = asks.length
              const requestsBefore = server.requests.length
              const exit = await Effect.runPromiseExitWith(context)(settle(value))
              if (!Exit.isSuccess(exit)) return false
              if (decodes(value)) return true
              return (
                exit.value.result.type === "error" &&
                exit.value.result.value.startsWith("Invalid tool input: ") &&
                asks.length === asksBefore &&
                server.requests.length === requestsBefore
              )
            }),
            { numRuns: 60 },
          ),
        )
      }),
    ).pipe(Effect.provide(layer())),
  )
})
