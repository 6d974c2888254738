import { createReadStream, realpathSync, statSync } from "node:fs"
import type { IncomingMessage, ServerResponse } from "node:http"
import { extname, resolve, sep } from "node:path"
import { Effect, Layer } from "effect"
import { HttpServer } from "./HttpServer"

export * as StaticFiles from "./StaticFiles"

// The built renderer, served read-only to anyone who passes the Host/Origin checks. It needs no
// token: the browser cannot send one when it loads index.html (the token sits in the URL fragment,
// which never reaches the server), and these files hold no data, only the UI's code.

const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
}

/**
 * Maps a request path to a file strictly inside `root`, or `undefined`. Dot segments, encoded or
 * not, are refused rather than normalized, and symlinks may not lead out of the directory.
 */
export function resolveFile(root: string, url: string): string | undefined {
  const path = url.split(/[?#]/, 1)[0] ?? "/"
  let decoded: string
  try {
    decoded = decodeURIComponent(path)
  } catch {
    return undefined
  }
  if (!decoded.startsWith("/") || decoded.includes("\0") || decoded.includes("\\")) return undefined
  if (decoded.split("/").some((segment) => segment === ".." || segment === ".")) return undefined
  const relative = decoded.endsWith("/") ? `${decoded}index.html` : decoded
  let realRoot: string
  let real: string
  try {
    realRoot = realpathSync(root)
    real = realpathSync(resolve(realRoot, `.${relative}`))
  } catch {
    return undefined
  }
  if (!real.startsWith(realRoot + sep)) return undefined
  return statSync(real, { throwIfNoEntry: false })?.isFile() ? real : undefined
}

const notBuilt = "The Gatehouse UI is not built. Run `npm run build`, then reload.\n"

/** The route that serves `root` (the built renderer) for GET and HEAD. */
export const route = (root: string): HttpServer.Route => ({
  prefix: "/",
  auth: "public",
  request: (req, res) => serve(root, req, res),
})

function serve(root: string, req: IncomingMessage, res: ServerResponse) {
  if (req.method !== "GET" && req.method !== "HEAD") {
    return text(res, 405, "Method not allowed\n", { Allow: "GET, HEAD" })
  }
  const file = resolveFile(root, req.url ?? "/")
  if (!file) {
    return text(res, 404, req.url === "/" ? notBuilt : "Not found\n")
  }
  const size = statSync(file, { throwIfNoEntry: false })?.size
  if (size === undefined) return text(res, 404, "Not found\n")
  res.writeHead(200, {
    "Content-Type": contentTypes[extname(file).toLowerCase()] ?? "application/octet-stream",
    "Content-Length": size,
    // Vite fingerprints everything under assets/; index.html must always be revalidated.
    "Cache-Control": req.url?.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache",
  })
  if (req.method === "HEAD") return res.end()
  const stream = createReadStream(file)
  stream.on("error", () => res.destroy())
  stream.pipe(res)
}

function text(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, {
    ...headers,
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
  })
  res.end(res.req.method === "HEAD" ? undefined : body)
}

/** Mounts the renderer directory at `/` for the lifetime of the layer. */
export const layer = (root: string) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const server = yield* HttpServer.Service
      yield* server.mount(route(root))
    }),
  )
