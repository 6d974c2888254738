import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { clipMiddle, escapeForDisplay, escapeSegments, hasHiddenCharacters } from "@renderer/lib/escape"

// Characters that must never reach the screen raw: C0 and C1 controls, DEL, and every bidi control
// (embeddings, overrides, isolates, marks).
const forbidden = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u
const forbiddenExceptLayout = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u

const dangerous = [
  ..."\u0000\u0001\u0007\u0008\t\n\u000b\u000c\r\u001b\u007f\u0080\u0085\u009b\u009f",
  ..."\u061c\u200b\u200c\u200d\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e",
  ..."\u2060\u2066\u2067\u2068\u2069\ufeff",
  "\u{e0041}",
  "\ud800",
  "\udc00",
]

/** Strings mixing ordinary text (including astral characters) with the dangerous ones. */
const hostile = fc
  .array(fc.oneof(fc.string({ unit: "grapheme" }), fc.constantFrom(...dangerous), fc.string({ unit: "binary" })), {
    maxLength: 20,
  })
  .map((parts) => parts.join(""))

describe("escapeForDisplay", () => {
  it("shows ANSI escapes, bidi overrides and carriage returns as escape sequences", () => {
    expect(escapeForDisplay("\u001b[31mred\u001b[0m")).toBe("\\x1b[31mred\\x1b[0m")
    expect(escapeForDisplay("ls \u202efdp.exe")).toBe("ls \\u202efdp.exe")
    expect(escapeForDisplay("safe\rrm -rf ~")).toBe("safe\\rrm -rf ~")
    expect(escapeForDisplay("a\u2066b\u2069c\u200ed")).toBe("a\\u2066b\\u2069c\\u200ed")
    expect(escapeForDisplay("tag\u{e0041}")).toBe("tag\\u{e0041}")
    expect(escapeForDisplay("nul\u0000")).toBe("nul\\0")
    expect(escapeForDisplay("c1\u009b31m")).toBe("c1\\x9b31m")
  })

  it("escapes newlines and tabs on one line, and keeps them in multiline blocks", () => {
    expect(escapeForDisplay("a\nb\tc")).toBe("a\\nb\\tc")
    expect(escapeForDisplay("a\nb\tc", { multiline: true })).toBe("a\nb\tc")
    expect(escapeForDisplay("a\r\nb", { multiline: true })).toBe("a\\r\nb")
  })

  it("returns ordinary text unchanged, including non-Latin scripts and emoji", () => {
    for (const text of ["git status", "ls -la ~/src", "echo 'héllo wörld' | wc", "cat 日本語.txt", "echo 🎉", "שלום"]) {
      expect(escapeForDisplay(text)).toBe(text)
      expect(hasHiddenCharacters(text)).toBe(false)
    }
  })

  it("never lets a C0/C1 control or a bidi character through, whatever the input", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        expect(escapeForDisplay(text)).not.toMatch(forbidden)
        expect(escapeForDisplay(text, { multiline: true })).not.toMatch(forbiddenExceptLayout)
      }),
      { numRuns: 2000 },
    )
  })

  it("leaves no lone surrogate in its output", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const out = escapeForDisplay(text)
        expect(out).not.toMatch(/\p{Cs}/u)
      }),
      { numRuns: 1000 },
    )
  })

  it("splits into segments that join to the escaped text and keep every visible character in order", () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), (text, multiline) => {
        const segments = escapeSegments(text, { multiline })
        expect(segments.map((segment) => segment.value).join("")).toBe(escapeForDisplay(text, { multiline }))
        const literal = segments
          .filter((segment) => segment.kind === "text")
          .map((segment) => segment.value)
          .join("")
        const kept = [...text].filter(
          (c) => (multiline && (c === "\n" || c === "\t")) || !/^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]$/u.test(c),
        )
        expect(literal).toBe(kept.join(""))
      }),
      { numRuns: 1000 },
    )
  })
})

describe("clipMiddle", () => {
  const limits = { headChars: 20, tailChars: 10, maxLines: 4 }

  it("returns a short text whole", () => {
    expect(clipMiddle("git status", limits)).toEqual({ head: "git status", tail: "", hiddenChars: 0, hiddenLines: 0 })
  })

  it("keeps the tail of a long one-line command on screen and says how much is hidden", () => {
    const command = `echo hello${" ".repeat(10_000)}; rm -rf ~`
    const clipped = clipMiddle(command, limits)
    expect(clipped.head).toBe(command.slice(0, 20))
    expect(clipped.tail).toBe(command.slice(-10))
    expect(clipped.tail).toContain("rm -rf ~")
    expect(clipped.hiddenChars).toBe(command.length - 30)
  })

  it("cuts many short lines at line boundaries and counts the hidden lines", () => {
    const text = Array.from({ length: 10 }, (_, i) => `l${i}`).join("\n")
    const clipped = clipMiddle(text, limits)
    expect(clipped.head).toBe("l0\nl1\n")
    expect(clipped.tail).toBe("l8\nl9")
    expect(clipped.hiddenLines).toBe(6)
  })

  it("always accounts for every character and never splits a surrogate pair", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (text) => {
        const clipped = clipMiddle(text, limits)
        expect(clipped.head.length + clipped.hiddenChars + clipped.tail.length).toBe(text.length)
        expect(text.startsWith(clipped.head)).toBe(true)
        expect(text.endsWith(clipped.tail)).toBe(true)
        expect(clipped.head + clipped.tail).not.toMatch(/\p{Cs}/u)
      }),
      { numRuns: 500 },
    )
  })
})
