import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"
import { Effect } from "effect"

// A real OpenAI chat-completions server on 127.0.0.1 for tests: each test queues the replies it
// wants (full completions, SSE streams written chunk by chunk, HTTP errors, hangs, garbage) and
// asserts on the recorded requests. It speaks the same envelopes as OpenAI, so clients with strict
// parsers (@ai-sdk/openai-compatible in OpenCode) accept it too.

/** One piece of a stream: an object is sent as one `data: <json>` event; text and bytes verbatim. */
export type StreamPiece = object | string | Uint8Array

export type Reply =
  /** A JSON body (a completion, or anything else) with status 200 unless given. */
  | {
      readonly type: "json"
      readonly body: unknown
      readonly status?: number
      readonly headers?: Readonly<Record<string, string>>
    }
  /** `text/event-stream`, one real write per piece; `data: [DONE]` follows unless `done: false`. */
  | {
      readonly type: "stream"
      readonly pieces: ReadonlyArray<StreamPiece>
      readonly done?: boolean
      /** Milliseconds between pieces, so each piece reaches the client on its own. */
      readonly delayMs?: number
      /** After the pieces: end the response (default), destroy the socket, or keep it open. */
      readonly end?: "close" | "destroy" | "hang"
      readonly headers?: Readonly<Record<string, string>>
    }
  /** An error status with a JSON (object) or text (string) body. */
  | { readonly type: "error"; readonly status: number; readonly body?: unknown; readonly statusText?: string }
  /** Any text with any content type: garbage, HTML error pages, truncated JSON. */
  | { readonly type: "raw"; readonly body: string; readonly status?: number; readonly contentType?: string }
  /** Headers are never sent; the connection stays open until the client leaves or the server closes. */
  | { readonly type: "hang" }

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  /** Lower-cased header names, as node:http gives them. */
  readonly headers: IncomingHttpHeaders
  readonly rawBody: string
  /** The parsed JSON body; undefined when the body was not JSON. */
  readonly body: unknown
  /** Settles when the exchange's connection closes; `complete` is false when the client left first. */
  readonly closed: Promise<{ readonly complete: boolean }>
}

export interface OpenAIServerOptions {
  /** Answers a chat request when the queue is empty (e.g. a client's title request); else a loud 500. */
  readonly fallback?: (request: RecordedRequest) => Reply | undefined
  /** Model ids listed by `GET …/models`; default `["test-model"]`. */
  readonly models?: ReadonlyArray<string>
}

export interface OpenAIServer {
  readonly port: number
  /** `http://127.0.0.1:<port>/v1`: the `base_url` a client is given. */
  readonly baseUrl: string
  /** Every chat-completions request so far, in arrival order. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** Queues replies for the next chat-completions requests, in order. */
  readonly enqueue: (...replies: ReadonlyArray<Reply>) => void
  /** The `n`-th chat-completions request (1-based), once it has fully arrived. */
  readonly request: (n: number) => Promise<RecordedRequest>
  readonly close: () => Promise<void>
}

export const MODEL = "test-model"
const CREATED = 1_700_000_000

// ------------------------------------------------------------------------------------------------
// Builders

export interface CallSpec {
  readonly id?: string
  readonly name: string
  /** A string is sent as is (so tests can send broken JSON); anything else is JSON-encoded. */
  readonly arguments?: string | object
}

/** A complete `chat.completion` body. */
export function completion(
  options: {
    readonly text?: string | null
    readonly toolCalls?: ReadonlyArray<CallSpec>
    readonly finishReason?: string | null
    readonly usage?: object | null
    /** Extra fields merged into the message (e.g. `reasoning_content`). */
    readonly message?: object
  } = {},
): object {
  const toolCalls = options.toolCalls?.map((call, index) => ({
    id: call.id ?? `call_srv_${index}`,
    type: "function",
    function: { name: call.name, arguments: argumentsText(call.arguments) },
  }))
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: CREATED,
    model: MODEL,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: options.text === undefined ? (toolCalls ? null : "") : options.text,
          ...(toolCalls ? { tool_calls: toolCalls } : {}),
          ...options.message,
        },
        finish_reason: options.finishReason === undefined ? (toolCalls ? "tool_calls" : "stop") : options.finishReason,
      },
    ],
    ...(options.usage === undefined
      ? { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }
      : options.usage === null
        ? {}
        : { usage: options.usage }),
  }
}

const argumentsText = (value: string | object | undefined) =>
  typeof value === "string" ? value : JSON.stringify(value ?? {})

/** One `chat.completion.chunk` carrying `delta` (and a finish reason on the last one). */
export function chunk(delta: object, finishReason: string | null = null): object {
  return {
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: CREATED,
    model: MODEL,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  }
}

/**
 * A tool-call delta: the first one of a call carries `id`, `type` and `name`; later ones only
 * `index` and an `arguments` fragment.
 */
export function callDelta(
  index: number,
  part: { readonly id?: string; readonly name?: string; readonly arguments?: string },
) {
  return {
    index,
    ...(part.id !== undefined ? { id: part.id, type: "function" } : {}),
    function: {
      ...(part.name !== undefined ? { name: part.name } : {}),
      ...(part.arguments !== undefined ? { arguments: part.arguments } : {}),
    },
  }
}

/** Chunks streaming `parts` as text, then a `stop` chunk. */
export function textChunks(...parts: ReadonlyArray<string>): ReadonlyArray<object> {
  return [chunk({ role: "assistant", content: "" }), ...parts.map((content) => chunk({ content })), chunk({}, "stop")]
}

/** The exact bytes a stream reply writes for `pieces` (for tests that cut a stream themselves). */
export function sseText(pieces: ReadonlyArray<object | string>, done = true): string {
  return pieces.map(pieceText).join("") + (done ? "data: [DONE]\n\n" : "")
}

const pieceText = (piece: object | string) => (typeof piece === "string" ? piece : `data: ${JSON.stringify(piece)}\n\n`)

export const jsonReply = (body: unknown, status = 200): Reply => ({ type: "json", body, status })
export const streamReply = (
  pieces: ReadonlyArray<StreamPiece>,
  options: Omit<Extract<Reply, { type: "stream" }>, "type" | "pieces"> = {},
): Reply => ({ type: "stream", pieces, ...options })
export const errorReply = (status: number, body?: unknown): Reply => ({ type: "error", status, body })
export const rawReply = (body: string, contentType = "text/plain", status = 200): Reply => ({
  type: "raw",
  body,
  contentType,
  status,
})
export const hangReply = (): Reply => ({ type: "hang" })

// ------------------------------------------------------------------------------------------------
// Server

export async function startOpenAIServer(options: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const queue: Array<Reply> = []
  const requests: Array<RecordedRequest> = []
  const waiters: Array<{ readonly n: number; readonly resolve: (request: RecordedRequest) => void }> = []

  const server = createServer((req, res) => {
    const parts: Array<Buffer> = []
    req.on("data", (part: Buffer) => parts.push(part))
    req.on("end", () => {
      const path = req.url ?? "/"
      const rawBody = Buffer.concat(parts).toString("utf8")
      const closed = new Promise<{ readonly complete: boolean }>((resolve) =>
        res.on("close", () => resolve({ complete: res.writableFinished })),
      )
      const pathname = path.split("?")[0]!
      if (req.method === "GET" && pathname.endsWith("/models")) {
        const data = (options.models ?? [MODEL]).map((id) => ({
          id,
          object: "model",
          created: CREATED,
          owned_by: "test",
        }))
        return void send(res, { type: "json", body: { object: "list", data } })
      }
      if (req.method !== "POST" || !pathname.endsWith("/chat/completions"))
        return void send(res, {
          type: "error",
          status: 404,
          body: { error: { message: `no route ${req.method} ${path}` } },
        })
      const request: RecordedRequest = {
        method: req.method,
        path,
        headers: req.headers,
        rawBody,
        body: parseJson(rawBody),
        closed,
      }
      requests.push(request)
      for (const waiter of waiters.filter((candidate) => candidate.n === requests.length)) waiter.resolve(request)
      const reply = queue.shift() ??
        options.fallback?.(request) ?? {
          type: "error",
          status: 500,
          body: { error: { message: `openai-server: no reply queued for request ${requests.length}` } },
        }
      void send(res, reply)
    })
  })
  // Node's fetch keeps connections alive; without this a hung exchange would hold close() forever.
  server.keepAliveTimeout = 1000

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const port = (server.address() as AddressInfo).port

  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    request: (n) =>
      requests.length >= n ? Promise.resolve(requests[n - 1]!) : new Promise((resolve) => waiters.push({ n, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** The server as a scoped resource: it closes with the test's scope. */
export const openAIServer = (options?: OpenAIServerOptions) =>
  Effect.acquireRelease(
    Effect.promise(() => startOpenAIServer(options)),
    (server) => Effect.promise(() => server.close()),
  )

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

async function send(res: ServerResponse, reply: Reply): Promise<void> {
  switch (reply.type) {
    case "json":
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers })
      res.end(JSON.stringify(reply.body))
      return
    case "error": {
      const text =
        typeof reply.body === "string" ? reply.body : reply.body === undefined ? "" : JSON.stringify(reply.body)
      const type = typeof reply.body === "string" ? "text/plain" : "application/json"
      if (reply.statusText !== undefined) res.writeHead(reply.status, reply.statusText, { "content-type": type })
      else res.writeHead(reply.status, { "content-type": type })
      res.end(text)
      return
    }
    case "raw":
      res.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? "text/plain" })
      res.end(reply.body)
      return
    case "hang":
      return
    case "stream": {
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
        ...reply.headers,
      })
      res.flushHeaders()
      const pieces: Array<StreamPiece> = [...reply.pieces]
      if (reply.done !== false) pieces.push("data: [DONE]\n\n")
      for (const [index, piece] of pieces.entries()) {
        if (res.destroyed) return
        if (index > 0 && reply.delayMs) await sleep(reply.delayMs)
        const bytes = piece instanceof Uint8Array ? piece : pieceText(piece)
        await new Promise<void>((resolve) => res.write(bytes, () => resolve()))
      }
      if (reply.end === "destroy") res.socket?.destroy()
      else if (reply.end !== "hang") res.end()
      return
    }
  }
}
