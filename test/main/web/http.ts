import { request as httpRequest, type IncomingHttpHeaders } from "node:http"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"

// Raw loopback requests for the host's tests: every header is exactly what the test says, so a
// test can play the DNS-rebinding victim's browser (foreign Host) or a hostile page (foreign Origin).

export interface RawResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface RawRequest {
  readonly method?: string
  readonly path?: string
  /** Sent exactly as given; `host: undefined` sends no Host header at all. */
  readonly headers?: Record<string, string | undefined>
}

const clean = (headers: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined))

export function send(port: number, options: RawRequest = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      method: options.method ?? "GET",
      path: options.path ?? "/",
      headers: clean({ host: `127.0.0.1:${port}`, ...options.headers }),
      setHost: false,
      agent: false,
    })
    req.on("response", (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on("error", reject)
    req.end()
  })
}

/**
 * A WebSocket upgrade request: resolves with 101 and the echoed subprotocol when the server
 * accepts, or with the rejection's status, headers and body.
 */
export function upgrade(
  port: number,
  options: { readonly path?: string; readonly headers?: Record<string, string | undefined> } = {},
): Promise<RawResponse & { readonly protocol?: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      path: options.path ?? "/ws",
      headers: clean({
        host: `127.0.0.1:${port}`,
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        ...options.headers,
      }),
      setHost: false,
      agent: false,
    })
    req.on("upgrade", (res, socket) => {
      socket.destroy()
      resolve({ status: 101, headers: res.headers, body: "", protocol: res.headers["sec-websocket-protocol"] })
    })
    req.on("response", (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on("error", reject)
    req.end()
  })
}

/** A stand-in for the built renderer: an index page, a fingerprinted asset and a nested file. */
export function makeRendererDir(root: string): string {
  const dir = join(root, "renderer")
  mkdirSync(join(dir, "assets"), { recursive: true })
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>Gatehouse</title>")
  writeFileSync(join(dir, "assets", "index-abc123.js"), "console.log('ui')")
  writeFileSync(join(dir, "assets", "index-abc123.css"), "body{}")
  return dir
}
