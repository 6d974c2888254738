import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { Duplex } from "node:stream"
import { Context, Effect, Layer, Schema, type Scope } from "effect"
import { Tokens } from "@core/auth/Tokens"
import { Config } from "@core/config/Config"
import * as Endpoint from "@main/ingress/endpoint"
import { isAllowedHost, isAllowedOrigin, presentedToken, securityHeaders } from "./security"

export * as HttpServer from "./HttpServer"

/** The loopback interface: the servers never listen anywhere else (PRODUCT.md, "Safe"). */
export const hostname = "127.0.0.1"

/** Port used when neither `--port` nor `server.port` in config.jsonc names one. */
export { defaultPort } from "@main/ingress/endpoint"

/**
 * One mounted handler. The server checks Host, Origin and (unless `auth` is `public`) the token of
 * the named door before a handler sees the request, so handlers never repeat those checks.
 */
export interface Route {
  /** Path prefix, matched on a segment boundary: `/mcp` matches `/mcp`, `/mcp/x`, `/mcp?x`, not `/mcpx`. */
  readonly prefix: string
  /** Which token admits a request: the agent token (MCP), the supervisor token (the UI's API), or none. */
  readonly auth: "public" | Tokens.Kind
  /** Plain HTTP requests. Without it, requests to the prefix get 426 (if it upgrades) or 404. */
  readonly request?: (req: IncomingMessage, res: ServerResponse) => void
  /** Upgrade requests (WebSocket). Without it, upgrades to the prefix get 404. */
  readonly upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void
}

export interface Interface {
  /** The port actually bound (differs from the requested one when that was 0). */
  readonly port: number
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string
  /** Adds a route for the lifetime of the scope; the longest matching prefix wins. */
  readonly mount: (route: Route) => Effect.Effect<void, never, Scope.Scope>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/web/HttpServer") {}

/** The port cannot be bound (in use, or not permitted). */
export class ListenError extends Schema.TaggedError<ListenError>()("HttpServer.ListenError", {
  port: Schema.Number,
  reason: Schema.String,
}) {
  override get message() {
    return `Cannot listen on ${hostname}:${this.port}: ${this.reason}`
  }
}

export interface Options {
  /** Overrides `server.port` from config.jsonc; 0 picks any free port. */
  readonly port?: number | undefined
}

export const matchesPrefix = (prefix: string, url: string): boolean => {
  if (prefix === "/") return url.startsWith("/")
  if (!url.startsWith(prefix)) return false
  const next = url.charAt(prefix.length)
  return next === "" || next === "/" || next === "?" || next === "#"
}

type Rejection = { readonly status: number; readonly message: string; readonly headers?: Record<string, string> }

const listen = (server: Server, port: number) =>
  Effect.callback<number, ListenError>((resume) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening)
      const reason = error.code === "EADDRINUSE" ? "the port is already in use" : error.message
      resume(Effect.fail(new ListenError({ port, reason })))
    }
    const onListening = () => {
      server.off("error", onError)
      resume(Effect.succeed((server.address() as AddressInfo).port))
    }
    server.once("error", onError)
    server.once("listening", onListening)
    server.listen({ port, host: hostname, exclusive: true })
  })

const close = (server: Server) =>
  Effect.callback<void>((resume) => {
    server.close(() => resume(Effect.void))
    // Keep-alive sockets would hold close() open until they time out.
    server.closeAllConnections()
  })

export const layer = (options: Options = {}) =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const config = yield* Config.Service
      const tokens = yield* Tokens.Service
      const requested = options.port ?? config.config.server?.port ?? Endpoint.defaultPort
      const routes: Array<Route> = []
      // Read from the socket, so a request that races the end of start-up is judged by the real port.
      const boundPort = () => (server.address() as AddressInfo | null)?.port ?? requested

      const find = (url: string) => routes.find((route) => matchesPrefix(route.prefix, url))

      /** Host, then Origin, then the route, then its token: the first failing check answers. */
      const admit = (req: IncomingMessage, upgrade: boolean): Rejection | Route => {
        const port = boundPort()
        if (!isAllowedHost(req.headers.host, port)) return { status: 403, message: "Forbidden: unexpected Host header" }
        if (!isAllowedOrigin(req.headers.origin, port)) return { status: 403, message: "Forbidden: foreign Origin" }
        const route = find(req.url ?? "/")
        if (!route) return { status: 404, message: "Not found" }
        if (route.auth !== "public" && !tokens.verify(route.auth, presentedToken(req.headers, upgrade))) {
          return {
            status: 401,
            message: "Unauthorized: a valid token is required",
            headers: { "WWW-Authenticate": "Bearer" },
          }
        }
        return route
      }

      const onRequest = (req: IncomingMessage, res: ServerResponse) => {
        for (const [name, value] of Object.entries(securityHeaders(boundPort()))) res.setHeader(name, value)
        const admitted = admit(req, false)
        if ("status" in admitted) return reply(res, admitted)
        const { request, upgrade } = admitted
        if (request)
          return guard(
            () => request(req, res),
            () => internalError(res),
          )
        if (upgrade) return reply(res, { status: 426, message: "Upgrade Required", headers: { Upgrade: "websocket" } })
        return reply(res, { status: 404, message: "Not found" })
      }

      const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        socket.on("error", () => socket.destroy())
        const admitted = admit(req, true)
        if ("status" in admitted) return rejectUpgrade(socket, boundPort(), admitted)
        const { upgrade } = admitted
        if (!upgrade) return rejectUpgrade(socket, boundPort(), { status: 404, message: "Not found" })
        guard(
          () => upgrade(req, socket, head),
          () => rejectUpgrade(socket, boundPort(), { status: 500, message: "Internal server error" }),
        )
      }

      // A missing Host must reach our check (403), not Node's built-in 400.
      const server = createServer({ requireHostHeader: false })
      server.on("request", onRequest)
      server.on("upgrade", onUpgrade)
      const port = yield* Effect.acquireRelease(listen(server, requested), () => close(server))

      const mount = (route: Route) =>
        Effect.acquireRelease(
          Effect.sync(() => {
            routes.push(route)
            routes.sort((a, b) => b.prefix.length - a.prefix.length)
          }),
          () =>
            Effect.sync(() => {
              const index = routes.indexOf(route)
              if (index >= 0) routes.splice(index, 1)
            }),
        )

      return Service.of({ port, url: `http://${hostname}:${port}`, mount })
    }),
  )

/** A throwing handler answers 500 instead of taking the whole process down. */
function guard(handle: () => void, fail: () => void) {
  try {
    handle()
  } catch (error) {
    process.stderr.write(
      `Gatehouse: a request handler failed: ${error instanceof Error ? error.stack : String(error)}\n`,
    )
    fail()
  }
}

function internalError(res: ServerResponse) {
  if (res.headersSent) return void res.destroy()
  reply(res, { status: 500, message: "Internal server error" })
}

function reply(res: ServerResponse, rejection: Rejection) {
  const body = `${rejection.message}\n`
  res.writeHead(rejection.status, {
    ...rejection.headers,
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
  })
  res.end(body)
}

function rejectUpgrade(socket: Duplex, port: number, rejection: Rejection) {
  const body = `${rejection.message}\n`
  const headers = {
    ...securityHeaders(port),
    ...rejection.headers,
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    "Cache-Control": "no-store",
    Connection: "close",
  }
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")
  socket.end(`HTTP/1.1 ${rejection.status} ${STATUS_CODES[rejection.status]}\r\n${head}\r\n${body}`)
}
