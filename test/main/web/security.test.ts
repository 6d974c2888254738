import { assert, describe, it } from "@effect/vitest"
import {
  contentSecurityPolicy,
  isAllowedHost,
  isAllowedOrigin,
  presentedToken,
  securityHeaders,
} from "@main/web/security"

describe("security", () => {
  it("allows exactly the three loopback names with the server's port as Host", () => {
    assert.isTrue(isAllowedHost("127.0.0.1:5000", 5000))
    assert.isTrue(isAllowedHost("localhost:5000", 5000))
    assert.isTrue(isAllowedHost("[::1]:5000", 5000))
    for (const host of ["127.0.0.1:5001", "127.0.0.1", "0.0.0.0:5000", "localhost.evil.example:5000", "", undefined]) {
      assert.isFalse(isAllowedHost(host, 5000), String(host))
    }
  })

  it("accepts no Origin or the server's own, and refuses null and every other origin", () => {
    assert.isTrue(isAllowedOrigin(undefined, 5000))
    assert.isTrue(isAllowedOrigin("http://localhost:5000", 5000))
    for (const origin of ["null", "http://evil.example", "http://localhost:5001", "https://localhost:5000", ""]) {
      assert.isFalse(isAllowedOrigin(origin, 5000), origin)
    }
  })

  it("builds a CSP without unsafe sources that only lets the page talk to its own host", () => {
    const csp = contentSecurityPolicy(5000)
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self' ws://127.0.0.1:5000 ws://localhost:5000",
      "img-src 'self' data:",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      "form-action 'none'",
    ]) {
      assert.include(csp.split("; "), directive)
    }
    assert.notMatch(csp, /unsafe-|\*|script-src[^;]*data:/)
    assert.notProperty(securityHeaders(5000), "Access-Control-Allow-Origin")
  })

  it("takes the token from a Bearer header or, for an upgrade, from the bearer subprotocol only", () => {
    const token = "ab".repeat(32)
    assert.strictEqual(presentedToken({ authorization: `Bearer ${token}` }, false), token)
    assert.strictEqual(presentedToken({ "sec-websocket-protocol": `gatehouse, bearer.${token}` }, true), token)
    assert.isUndefined(presentedToken({ "sec-websocket-protocol": `gatehouse, bearer.${token}` }, false))
    assert.isUndefined(presentedToken({ authorization: `Basic ${token}` }, false))
    assert.isUndefined(presentedToken({}, true))
  })
})
