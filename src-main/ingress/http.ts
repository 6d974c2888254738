import type { IncomingMessage, ServerResponse } from "node:http"

// The few HTTP answers the MCP route gives itself, before a request reaches an SDK transport:
// JSON-RPC error bodies in the transport's own shape, so clients read one format either way.

/** The largest POST body read (the SDK transport's own default). */
export const maxBodyBytes = 4 * 1024 * 1024

export type Body =
  { readonly _tag: "ok"; readonly text: string } | { readonly _tag: "tooLarge" } | { readonly _tag: "aborted" }

/** Reads a request body up to `limit` bytes; a longer one is dropped unread. */
export function readBody(req: IncomingMessage, limit = maxBodyBytes): Promise<Body> {
  return new Promise((resolve) => {
    const declared = Number(req.headers["content-length"])
    if (Number.isFinite(declared) && declared > limit) {
      req.resume()
      return resolve({ _tag: "tooLarge" })
    }
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (body: Body) => {
      if (done) return
      done = true
      resolve(body)
    }
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        chunks.length = 0
        req.resume()
        return finish({ _tag: "tooLarge" })
      }
      if (!done) chunks.push(chunk)
    })
    req.on("end", () => finish({ _tag: "ok", text: Buffer.concat(chunks).toString("utf8") }))
    req.on("error", () => finish({ _tag: "aborted" }))
    req.on("close", () => finish({ _tag: "aborted" }))
  })
}

/** `application/json` by its media type (parameters such as charset allowed), never by substring. */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false
  return value.split(";", 1)[0]!.trim().toLowerCase() === "application/json"
}

/** Codes the SDK transport uses for the same situations. */
export const Codes = {
  parseError: -32700,
  invalidParams: -32602,
  badRequest: -32000,
  sessionNotFound: -32001,
} as const

export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  options: { readonly id?: string | number | null; readonly headers?: Record<string, string> } = {},
): void {
  if (res.headersSent) return void res.end()
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: options.id ?? null })
  res.writeHead(status, {
    ...options.headers,
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
  })
  res.end(body)
}
