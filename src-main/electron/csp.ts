// The renderer's Content-Security-Policy under Electron: the headless host's policy (src-main/web/
// security.ts) without its WebSocket `connect-src`, since IPC needs no network at all.

/** No inline script or style, no eval, no plugins, no framing, no form posts. */
export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join("; ")

/**
 * The same policy as a `<meta>` tag in the built index.html: Electron loads the UI from file://,
 * where response headers may not apply. A meta policy cannot carry `frame-ancestors`, and it
 * also allows the headless host's loopback WebSocket (there the stricter header policy applies too).
 */
export const metaContentSecurityPolicy = [
  ...contentSecurityPolicy.split("; ").filter((directive) => !directive.startsWith("frame-ancestors")),
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
].join("; ")

export type ResponseHeaders = Record<string, string | Array<string>>

/**
 * The response headers with our policy as the only Content-Security-Policy: a header sent by
 * someone else (any spelling) is dropped rather than merged, so nothing can loosen it.
 */
export function withContentSecurityPolicy(headers: Readonly<ResponseHeaders> | undefined): ResponseHeaders {
  const out: ResponseHeaders = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== "content-security-policy") out[name] = value
  }
  // The scanner cannot evaluate a constant; test/main/electron/csp.test.ts checks this policy instead.
  out["Content-Security-Policy"] = [contentSecurityPolicy] // eng-disable CSP_GLOBAL_CHECK
  return out
}
