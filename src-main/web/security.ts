import type { IncomingHttpHeaders } from "node:http"

// The loopback server's admission rules, as pure functions (RELIABILITY.md §3). Localhost is not a
// trust boundary: any web page the person visits can make their browser talk to 127.0.0.1, and DNS
// rebinding can make a foreign name resolve to it. Host, Origin and a token are checked apart.

/** The only `Host` values a request may carry: a rebinding attacker's name never matches. */
export const allowedHosts = (port: number): ReadonlyArray<string> => [
  `127.0.0.1:${port}`,
  `localhost:${port}`,
  `[::1]:${port}`,
]

/** The server's own origins: the page loaded from any allowed host. */
export const allowedOrigins = (port: number): ReadonlyArray<string> =>
  allowedHosts(port).map((host) => `http://${host}`)

export function isAllowedHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false
  return allowedHosts(port).includes(host.toLowerCase())
}

/**
 * A request without `Origin` comes from a non-browser client (or a same-origin navigation) and is
 * fine; a present Origin must be the server's own. `null` (sandboxed frames, file: pages) is foreign.
 */
export function isAllowedOrigin(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true
  return allowedOrigins(port).includes(origin.toLowerCase())
}

/** No inline script or style anywhere: the UI ships as files from the same origin. */
export function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
  ].join("; ")
}

/** Sent on every response, errors included. There is deliberately no CORS header at all. */
export function securityHeaders(port: number): Readonly<Record<string, string>> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(port),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
  }
}

/** The subprotocol every UI WebSocket offers; it is the only one the server echoes. */
export const webSocketProtocol = "gatehouse"
/** Prefix of the subprotocol that carries the token: browsers cannot set headers on a WebSocket. */
export const bearerProtocolPrefix = "bearer."

/**
 * The presented token: `Authorization: Bearer <token>`, or for a WebSocket upgrade the
 * `bearer.<token>` subprotocol. Never the query string, which ends up in logs and history.
 */
export function presentedToken(headers: IncomingHttpHeaders, upgrade: boolean): string | undefined {
  const authorization = headers.authorization
  if (authorization !== undefined) {
    const match = /^Bearer ([^\s]+)$/i.exec(authorization.trim())
    return match?.[1]
  }
  if (!upgrade) return undefined
  const protocols = headers["sec-websocket-protocol"]
  if (protocols === undefined) return undefined
  const bearer = protocols
    .split(",")
    .map((protocol) => protocol.trim())
    .find((protocol) => protocol.startsWith(bearerProtocolPrefix))
  return bearer?.slice(bearerProtocolPrefix.length)
}
