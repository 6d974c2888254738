import { describe, expect, it } from "vitest"
import { contentSecurityPolicy, metaContentSecurityPolicy, withContentSecurityPolicy } from "@main/electron/csp"
import { contentSecurityPolicy as headlessPolicy } from "@main/web/security"

const directives = (policy: string) =>
  new Map(
    policy
      .split(";")
      .map((part) => part.trim().split(/\s+/))
      .filter((tokens) => tokens[0])
      .map((tokens) => [tokens[0]!, tokens.slice(1)] as const),
  )

describe("csp", () => {
  const policy = directives(contentSecurityPolicy)

  it("allows scripts and styles only from the app itself (RELIABILITY §7 row 8)", () => {
    expect(policy.get("default-src")).toEqual(["'self'"])
    expect(policy.get("script-src")).toEqual(["'self'"])
    expect(policy.get("style-src")).toEqual(["'self'"])
    expect(policy.get("object-src")).toEqual(["'none'"])
    expect(policy.get("base-uri")).toEqual(["'none'"])
    expect(policy.get("frame-ancestors")).toEqual(["'none'"])
    expect(policy.get("form-action")).toEqual(["'none'"])
  })

  it("contains no unsafe-inline, unsafe-eval, wildcard or data: script source", () => {
    for (const [name, sources] of policy) {
      for (const forbidden of ["'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", "'wasm-unsafe-eval'", "*"]) {
        expect(sources, name).not.toContain(forbidden)
      }
    }
    expect(policy.get("script-src")).not.toContain("data:")
  })

  it("is the headless host's policy without its WebSocket connect-src", () => {
    const headless = directives(headlessPolicy(7317))
    headless.delete("connect-src")
    expect(policy).toEqual(headless)
  })

  it("replaces any Content-Security-Policy header, whatever its spelling, and keeps the others", () => {
    const headers = withContentSecurityPolicy({
      "content-security-policy": ["default-src *"],
      "CONTENT-SECURITY-POLICY": "script-src 'unsafe-inline'",
      "Content-Type": ["text/html"],
    })
    expect(headers).toEqual({ "Content-Type": ["text/html"], "Content-Security-Policy": [contentSecurityPolicy] })
  })

  it("adds the policy to a response that had no headers", () => {
    expect(withContentSecurityPolicy(undefined)).toEqual({ "Content-Security-Policy": [contentSecurityPolicy] })
  })

  it("ships the same policy as a meta tag for file:// pages, minus frame-ancestors and plus loopback WebSockets", () => {
    const meta = directives(metaContentSecurityPolicy)
    const expected = new Map(policy)
    expected.delete("frame-ancestors")
    expected.set("connect-src", ["'self'", "ws://127.0.0.1:*", "ws://localhost:*"])
    expect(meta).toEqual(expected)
    expect(metaContentSecurityPolicy).not.toMatch(/unsafe-inline|unsafe-eval/)
  })
})
