import { mkdirSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Schema } from "effect"
import fc from "fast-check"
import type { Config } from "@core/config/Config"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { WebFetchTool } from "@main/tools/webfetch"
import { autoAnswer, locationTestLayer, makeSession } from "../../support/location"
import { makeTempDir } from "../../support/temp"
import { errorText, registered, resultText } from "./support/registered"
import { localServer, type Handler } from "./support/server"

const root = makeTempDir()
const directory = join(root, "project")
mkdirSync(directory)
const askEverything: Config.GatehouseConfig = {
  agents: { build: [{ action: "*", resource: "*", effect: "ask" }] },
}
const layer = (config: Config.GatehouseConfig = askEverything) =>
  locationTestLayer({ dataDir: makeTempDir(), directory, config })

const MiB = 1024 * 1024

/** A loopback port nothing listens on (bound, then released). */
const closedPort = Effect.promise(
  () =>
    new Promise<number>((resolve) => {
      const probe = createServer()
      probe.listen(0, "127.0.0.1", () => {
        const port = (probe.address() as AddressInfo).port
        probe.close(() => resolve(port))
      })
    }),
)

/** A session, a registered webfetch, asks answered `once`, and a server answering with `handler`. */
const setup = (handler: Handler) =>
  Effect.gen(function* () {
    const session = yield* makeSession()
    const asks = yield* autoAnswer(() => ({ reply: "once" }))
    const tool = yield* WebFetchTool.make
    const fetcher = yield* registered(WebFetchTool.name, tool, session.id)
    const server = yield* localServer(handler)
    return { session, asks, server, ...fetcher }
  })

const reply =
  (status: number, headers: Record<string, string | number>, body: string | Buffer = ""): Handler =>
  (_request, res) => {
    res.writeHead(status, headers)
    res.end(body)
  }

// Every conversion E.8 names, on a page without incidental whitespace.
const article = `<html><head><meta charset="utf-8"><link rel="stylesheet" href="x.css"><style>p { color: red }</style>
<script>alert("no")</script></head><body><h1>Title</h1><p>Some <em>emphasis</em> and <strong>strong</strong> text.</p>
<hr><ul><li>one</li><li>two</li></ul><pre><code>let x = 1</code></pre><p>Fish &amp; chips</p></body></html>`

const page = `<!doctype html><html><head><title>T</title><meta charset="utf-8"><link rel="stylesheet" href="x.css">
<style>body { color: red }</style><script>alert("no")</script></head>
<body><h1>Title</h1><p>Some <em>emphasis</em> and <strong>strong</strong> text.</p><hr>
<ul><li>one</li><li>two</li></ul><pre><code>let x = 1</code></pre>
<noscript>enable js</noscript><iframe src="x">frame text</iframe><object>object text</object><embed src="e">
<p>Fish &amp; chips</p></body></html>`

describe("WebFetchTool", () => {
  it.effect("asks webfetch for the URL, then fetches an HTML page as Markdown with the browser headers", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { session, asks, server, settle } = yield* setup(
          reply(200, { "content-type": "text/html; charset=utf-8" }, article),
        )
        const url = server.url("/doc")
        const settlement = yield* settle({ url })
        const markdown = [
          "# Title",
          "",
          "Some *emphasis* and **strong** text.",
          "",
          "---",
          "",
          "-   one",
          "-   two",
          "",
          "```",
          "let x = 1",
          "```",
          "",
          "Fish & chips",
        ].join("\n")
        assert.strictEqual(resultText(settlement), markdown)
        assert.deepStrictEqual(settlement.output?.structured, {
          url,
          contentType: "text/html; charset=utf-8",
          format: "markdown",
          output: markdown,
        })
        assert.deepStrictEqual(
          asks.map((ask) => [ask.action, ask.resources, ask.save, ask.metadata, ask.sessionID, ask.source?.messageID]),
          [["webfetch", [url], ["*"], { url, format: "markdown" }, session.id, "msg_test"]],
        )
        const [request] = server.requests
        assert.strictEqual(request!.method, "GET")
        assert.strictEqual(request!.headers["user-agent"], WebFetchTool.BROWSER_USER_AGENT)
        assert.strictEqual(
          request!.headers.accept,
          "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1",
        )
        assert.strictEqual(request!.headers["accept-language"], "en-US,en;q=0.9")
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("extracts visible text for the text format and keeps HTML unchanged for the html format", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { server, settle, asks } = yield* setup(reply(200, { "content-type": "text/html" }, page))
        const text = resultText(yield* settle({ url: server.url("/t"), format: "text", timeout: 5 }))
        assert.notInclude(text, "alert")
        assert.notInclude(text, "color: red")
        assert.notInclude(text, "enable js")
        assert.notInclude(text, "frame text")
        assert.notInclude(text, "object text")
        assert.include(text, "Title")
        assert.include(text, "Some emphasis and strong text.")
        assert.include(text, "Fish & chips")
        assert.strictEqual(resultText(yield* settle({ url: server.url("/h"), format: "html" })), page)
        assert.deepStrictEqual(
          server.requests.map((request) => request.headers.accept),
          [
            "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1",
            "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, text/markdown;q=0.7, */*;q=0.1",
          ],
        )
        assert.deepStrictEqual(asks[0]?.metadata, { url: server.url("/t"), format: "text", timeout: 5 })
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("returns non-HTML textual bodies as they are and refuses binary types", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const bodies: Record<string, readonly [string | undefined, string]> = {
          "/json": ["application/json", '{"a": "<b>1</b>"}'],
          "/ld": ["application/ld+json", '{"@context": "x"}'],
          "/xml": ["application/xml", "<a><b>1</b></a>"],
          "/svg": ["image/svg+xml", "<svg></svg>"],
          "/js": ["application/javascript", "let a = '<p>'"],
          "/md": ["text/markdown", "# Heading\n\n<p>kept</p>"],
          "/none": [undefined, "<p>untyped</p>"],
          "/png": ["image/png", "\x89PNG"],
          "/pdf": ["application/pdf; charset=binary", "%PDF-1.7"],
          "/zip": ["application/octet-stream", "PK"],
        }
        const { server, settle } = yield* setup((request, res) => {
          const [type, body] = bodies[request.path]!
          res.writeHead(200, type ? { "content-type": type } : {})
          res.end(body)
        })
        for (const path of ["/json", "/ld", "/xml", "/svg", "/js", "/md", "/none"]) {
          const settlement = yield* settle({ url: server.url(path) })
          assert.strictEqual(resultText(settlement), bodies[path]![1], path)
        }
        assert.strictEqual(
          errorText(yield* settle({ url: server.url("/png") })),
          `Unable to fetch ${server.url("/png")}: Unsupported fetched file content type: image/png`,
        )
        assert.strictEqual(
          errorText(yield* settle({ url: server.url("/pdf") })),
          `Unable to fetch ${server.url("/pdf")}: Unsupported fetched file content type: application/pdf`,
        )
        assert.strictEqual(
          errorText(yield* settle({ url: server.url("/zip") })),
          `Unable to fetch ${server.url("/zip")}: Unsupported fetched file content type: application/octet-stream`,
        )
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("decodes the declared charset", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const latin1 = Buffer.from("caf\xe9 cr\xe8me", "latin1")
        const { server, settle } = yield* setup(
          reply(200, { "content-type": "text/plain; charset=ISO-8859-1" }, latin1),
        )
        assert.strictEqual(resultText(yield* settle({ url: server.url("/") })), "café crème")
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("refuses URLs that are not http(s) before asking or sending anything", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { server, settle, asks } = yield* setup(reply(200, {}, "never"))
        for (const url of ["ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)", "data:text/plain,hi"])
          assert.strictEqual(
            errorText(yield* settle({ url })),
            `Unable to fetch ${url}: URL must use http:// or https://`,
          )
        assert.strictEqual(errorText(yield* settle({ url: "not a url" })), "Unable to fetch not a url: Invalid URL")
        assert.strictEqual(asks.length, 0)
        assert.strictEqual(server.requests.length, 0)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("sends nothing when the URL is denied, and passes a rejection's feedback to the model", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* makeSession()
        yield* autoAnswer(() => ({ reply: "reject", message: "use the docs mirror" }))
        const { settle } = yield* registered(WebFetchTool.name, yield* WebFetchTool.make, session.id)
        const server = yield* localServer(reply(200, { "content-type": "text/plain" }, "secret"))
        const denied = server.url("/private/key")
        assert.strictEqual(
          errorText(yield* settle({ url: denied })),
          `Unable to fetch ${denied}: Permission denied: webfetch`,
        )
        const asked = server.url("/public")
        assert.strictEqual(
          errorText(yield* settle({ url: asked })),
          `Unable to fetch ${asked}: The user rejected permission to use this specific tool call with the following feedback: use the docs mirror`,
        )
        assert.strictEqual(server.requests.length, 0)
      }),
    ).pipe(
      Effect.provide(
        layer({
          agents: {
            build: [
              { action: "*", resource: "*", effect: "ask" },
              { action: "webfetch", resource: "*/private/*", effect: "deny" },
            ],
          },
        }),
      ),
    ),
  )

  it.effect("lets a plain decline escape settlement as a defect and sends nothing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* makeSession()
        yield* autoAnswer(() => ({ reply: "reject" }))
        const { settleExit } = yield* registered(WebFetchTool.name, yield* WebFetchTool.make, session.id)
        const server = yield* localServer(reply(200, { "content-type": "text/plain" }, "x"))
        const exit = yield* settleExit({ url: server.url("/") })
        assert.isTrue(Exit.isFailure(exit))
        const defect = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isDieReason)?.defect : undefined
        assert.instanceOf(defect, PermissionV2.DeclinedError)
        assert.strictEqual(server.requests.length, 0)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("accepts a body of exactly 5 MiB and refuses one byte more, announced or chunked", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const exact = Buffer.alloc(5 * MiB, "a")
        const over = Buffer.alloc(5 * MiB + 1, "a")
        const { server, settle } = yield* setup((request, res) => {
          const body = request.path.startsWith("/exact") ? exact : over
          if (request.path.endsWith("/chunked")) {
            res.writeHead(200, { "content-type": "text/plain" })
            // No Content-Length: the client can only count while it reads.
            for (let offset = 0; offset < body.length; offset += 256 * 1024)
              res.write(body.subarray(offset, offset + 256 * 1024))
            res.end()
          } else {
            res.writeHead(200, { "content-type": "text/plain", "content-length": body.length })
            res.end(body)
          }
        })
        const tooLarge = "Response too large (exceeds 5242880 byte limit)"
        const ok = yield* settle({ url: server.url("/exact") })
        assert.strictEqual((ok.output?.structured as WebFetchTool.Output).output.length, 5 * MiB)
        const okChunked = yield* settle({ url: server.url("/exact/chunked") })
        assert.strictEqual((okChunked.output?.structured as WebFetchTool.Output).output.length, 5 * MiB)
        assert.strictEqual(
          errorText(yield* settle({ url: server.url("/over") })),
          `Unable to fetch ${server.url("/over")}: ${tooLarge}`,
        )
        assert.strictEqual(
          errorText(yield* settle({ url: server.url("/over/chunked") })),
          `Unable to fetch ${server.url("/over/chunked")}: ${tooLarge}`,
        )
        assert.strictEqual(server.requests.length, 4)
      }),
    ).pipe(Effect.provide(layer())),
  )

  // Live clock: the timeout is real time, as the tool sees it in production.
  it.live("times out a server that never answers or stalls mid-body, with the given timeout", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { server, settle } = yield* setup((request, res) => {
          if (request.path === "/stall") {
            res.writeHead(200, { "content-type": "text/plain" })
            res.write("partial")
          }
          // Otherwise nothing at all is sent; the scope's close drops the connection.
        })
        const start = Date.now()
        assert.strictEqual(
          errorText(yield* settle({ url: server.url("/hang"), timeout: 0.2 })),
          `Unable to fetch ${server.url("/hang")}: Request timed out`,
        )
        assert.strictEqual(
          errorText(yield* settle({ url: server.url("/stall"), timeout: 0.2 })),
          `Unable to fetch ${server.url("/stall")}: Request timed out`,
        )
        assert.isBelow(Date.now() - start, 5_000)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("closes the connection when the call is interrupted mid-request", () =>
    Effect.scoped(
      Effect.gen(function* () {
        let arrived!: () => void
        let closed!: () => void
        const arrival = new Promise<void>((resolve) => (arrived = resolve))
        const closing = new Promise<void>((resolve) => (closed = resolve))
        const { server, settle } = yield* setup((_request, res) => {
          res.on("close", () => closed())
          arrived()
        })
        const fiber = yield* Effect.forkScoped(settle({ url: server.url("/slow") }))
        yield* Effect.promise(() => arrival)
        yield* Fiber.interrupt(fiber)
        // The server sees the client go away: the request was aborted, not left hanging.
        yield* Effect.promise(() => closing)
        assert.strictEqual(server.requests.length, 1)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("refuses timeouts outside (0, 120] seconds as invalid input, asking nothing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { server, settle, asks } = yield* setup(reply(200, {}, ""))
        for (const timeout of [0, -1, 121, "10"]) {
          const message = errorText(yield* settle({ url: server.url("/"), timeout }))
          assert.match(message, /^Invalid tool input: timeout: /)
        }
        assert.strictEqual(asks.length, 0)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("follows redirects, refuses a loop after 10 hops and a redirect away from http(s)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { server, settle } = yield* setup((request, res) => {
          if (request.path === "/a") res.writeHead(301, { location: "/b" }).end()
          else if (request.path === "/b") res.writeHead(307, { location: server.url("/c") }).end()
          else if (request.path === "/c") res.writeHead(200, { "content-type": "text/plain" }).end("landed")
          else if (request.path === "/loop") res.writeHead(302, { location: "/loop" }).end()
          else res.writeHead(308, { location: "ftp://example.com/file" }).end()
        })
        assert.strictEqual(resultText(yield* settle({ url: server.url("/a") })), "landed")
        assert.deepStrictEqual(
          server.requests.map((request) => request.path),
          ["/a", "/b", "/c"],
        )
        assert.strictEqual(
          errorText(yield* settle({ url: server.url("/loop") })),
          `Unable to fetch ${server.url("/loop")}: Too many redirects (more than 10)`,
        )
        assert.strictEqual(server.requests.filter((request) => request.path === "/loop").length, 11)
        assert.strictEqual(
          errorText(yield* settle({ url: server.url("/away") })),
          `Unable to fetch ${server.url("/away")}: Redirected to a URL that is not http:// or https://: ftp://example.com/file`,
        )
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("fails on non-2xx statuses with the status code", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { server, settle } = yield* setup((request, res) => {
          res.writeHead(Number(request.path.slice(1)), { "content-type": "text/html" }).end("<h1>error page</h1>")
        })
        for (const status of [404, 500, 403, 204])
          if (status === 204) assert.strictEqual(resultText(yield* settle({ url: server.url(`/${status}`) })), "")
          else
            assert.strictEqual(
              errorText(yield* settle({ url: server.url(`/${status}`) })),
              `Unable to fetch ${server.url(`/${status}`)}: Request failed with status code ${status}`,
            )
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("retries a Cloudflare challenge once with the opencode User-Agent", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { server, settle, asks } = yield* setup((request, res) => {
          const challenged = request.path === "/always" || request.headers["user-agent"] !== "opencode"
          if (challenged)
            res.writeHead(403, { "cf-mitigated": "challenge", "content-type": "text/html" }).end("challenge")
          else res.writeHead(200, { "content-type": "text/plain" }).end("through")
        })
        assert.strictEqual(resultText(yield* settle({ url: server.url("/page") })), "through")
        assert.deepStrictEqual(
          server.requests.map((request) => request.headers["user-agent"]),
          [WebFetchTool.BROWSER_USER_AGENT, "opencode"],
        )
        assert.strictEqual(
          errorText(yield* settle({ url: server.url("/always") })),
          `Unable to fetch ${server.url("/always")}: Request failed with status code 403`,
        )
        assert.strictEqual(server.requests.length, 4)
        assert.strictEqual(asks.length, 2)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("does not retry a 403 without the challenge header", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { server, settle } = yield* setup(reply(403, { "content-type": "text/plain" }, "no"))
        assert.strictEqual(
          errorText(yield* settle({ url: server.url("/") })),
          `Unable to fetch ${server.url("/")}: Request failed with status code 403`,
        )
        assert.strictEqual(server.requests.length, 1)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("reports a refused connection with its cause", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { server, settle } = yield* setup(reply(200, {}, ""))
        const closed = `http://127.0.0.1:${yield* closedPort}/`
        const message = errorText(yield* settle({ url: closed }))
        assert.strictEqual(message.startsWith(`Unable to fetch ${closed}: fetch failed: `), true, message)
        assert.include(message, "ECONNREFUSED")
        assert.strictEqual(server.requests.length, 0)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.live("never runs the executor for random undecodable input and never crashes", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { server, settle, asks } = yield* setup(reply(200, { "content-type": "text/plain" }, "ok"))
        const decodes = (input: unknown) =>
          Exit.isSuccess(Schema.decodeUnknownExit(Schema.toCodecJson(WebFetchTool.Input))(input))
        const input = fc.oneof(
          fc.jsonValue(),
          fc.record(
            {
              url: fc.oneof(fc.string(), fc.constant(server.url("/p")), fc.jsonValue()),
              format: fc.oneof(fc.constantFrom("text", "markdown", "html", "pdf"), fc.jsonValue()),
              timeout: fc.oneof(fc.double(), fc.integer({ min: -5, max: 200 }), fc.jsonValue()),
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
