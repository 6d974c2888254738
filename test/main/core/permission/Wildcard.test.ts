import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Wildcard } from "@core/permission/Wildcard"

// The reference translation (SPEC-CORE D.2, with the `**/` rule its examples need): a new RegExp per
// call. Used only as the oracle, on inputs short enough for its backtracking.
function reference(input: string, pattern: string, ignoreCase: boolean): boolean {
  const normalized = input.replaceAll("\\", "/")
  let escaped = pattern
    .replaceAll("\\", "/")
    .replace(/\*\*\//g, "\x01")
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".")
    .replace(/\x01/g, "(.*/)?")
  if (escaped.endsWith(" .*")) escaped = escaped.slice(0, -3) + "( .*)?"
  return new RegExp("^" + escaped + "$", ignoreCase ? "si" : "s").test(normalized)
}

const matches = (input: string, pattern: string, ignoreCase = false) =>
  Wildcard.compile(pattern, ignoreCase).test(Wildcard.normalize(input, ignoreCase))

// Characters that stress every rule: wildcards, separators, RegExp metacharacters, newlines, and
// letters whose non-unicode case folding is special (ß has a two-letter upper case, ı and ſ would
// fold into ASCII, the Kelvin sign is already upper case) and a lone surrogate.
const alphabet = [
  "a",
  "b",
  "A",
  "/",
  "\\",
  " ",
  "*",
  "?",
  "\n",
  ".",
  "(",
  "[",
  "$",
  "^",
  "é",
  "É",
  "ß",
  "ı",
  "ſ",
  "S",
  "I",
  "k",
  "K",
  "\u212a",
  "\ud800",
]
const text = (maxLength: number) => fc.array(fc.constantFrom(...alphabet), { maxLength }).map((chars) => chars.join(""))

describe("Wildcard", () => {
  it("matches the D.2 examples for **/.env*, *.env and *.env.*", () => {
    for (const input of [".env", ".env.local", "subdir/.env", "a/b/c/.env.production"])
      assert.isTrue(Wildcard.match(input, "**/.env*"), input)
    for (const input of ["main.ts", "notenv"]) assert.isFalse(Wildcard.match(input, "**/.env*"), input)
    assert.isTrue(Wildcard.match(".env", "*.env"))
    assert.isTrue(Wildcard.match("foo.env", "*.env"))
    assert.isTrue(Wildcard.match("foo.env.local", "*.env.*"))
  })

  it("makes a trailing ' *' optional but keeps the word boundary", () => {
    assert.isTrue(Wildcard.match("git push", "git push *"))
    assert.isTrue(Wildcard.match("git push origin main", "git push *"))
    assert.isFalse(Wildcard.match("git pushx", "git push *"))
    assert.isFalse(Wildcard.match("git push", "git push **"))
    assert.isTrue(Wildcard.match("", " *"))
  })

  it("lets * cross slashes and newlines, ? take exactly one character, and anchors both ends", () => {
    assert.isTrue(Wildcard.match("src/a/b.ts", "src/*"))
    assert.isTrue(Wildcard.match("echo a\nrm -rf /", "echo *"))
    assert.isTrue(Wildcard.match("a\nb", "a?b"))
    assert.isFalse(Wildcard.match("ab", "a?b"))
    assert.isFalse(Wildcard.match("xsrc/a", "src/*"))
    assert.isFalse(Wildcard.match("src/a.tsx", "src/*.ts"))
    assert.isTrue(Wildcard.match("a+b(c)[d]$^.|{e}", "a+b(c)[d]$^.|{e}"))
    assert.isFalse(Wildcard.match("aXb", "a.b"))
  })

  it("reads backslashes as slashes in both the input and the pattern", () => {
    assert.isTrue(Wildcard.match("src\\lib\\a.ts", "src/*"))
    assert.isTrue(Wildcard.match("src/lib/a.ts", "src\\lib\\*"))
    assert.isTrue(Wildcard.match("C:\\work\\.env", "**/.env*"))
  })

  it("compares letters case-insensitively only when asked (Windows), like a RegExp i flag", () => {
    assert.isFalse(matches("RM -rf", "rm *"))
    assert.isTrue(matches("RM -rf", "rm *", true))
    assert.isTrue(matches("É", "é", true))
    assert.isFalse(matches("S", "ſ", true))
    assert.isFalse(matches("SS", "ß", true))
    assert.strictEqual(Wildcard.match("README", "readme"), process.platform === "win32")
  })

  it("agrees with the reference translation on random patterns and inputs", () => {
    fc.assert(
      fc.property(text(10), text(12), fc.boolean(), (pattern, input, ignoreCase) => {
        assert.strictEqual(
          matches(input, pattern, ignoreCase),
          reference(input, pattern, ignoreCase),
          JSON.stringify({ pattern, input }),
        )
      }),
      { numRuns: 20_000 },
    )
  })

  it("agrees with the reference on inputs built from the pattern itself", () => {
    // Random inputs rarely match; these are near-misses: the pattern with its wildcards filled
    // in, then a few random insertions.
    const edits = fc.array(fc.tuple(fc.nat(14), text(3)), { maxLength: 3 })
    fc.assert(
      fc.property(text(10), edits, fc.boolean(), (pattern, insertions, ignoreCase) => {
        let input = pattern.replace(/\*/g, "xy/").replace(/\?/g, "q")
        for (const [at, piece] of insertions) input = input.slice(0, at) + piece + input.slice(at)
        assert.strictEqual(
          matches(input, pattern, ignoreCase),
          reference(input, pattern, ignoreCase),
          JSON.stringify({ pattern, input }),
        )
      }),
      { numRuns: 20_000 },
    )
  })

  it("agrees with the reference on long patterns that need several 32-state words", () => {
    const piece = fc.constantFrom("a", "b", "/", "?", "*", "**/", "ab", "?b")
    const pattern = fc
      .array(piece, { minLength: 20, maxLength: 60 })
      .filter((pieces) => pieces.filter((p) => p.includes("*")).length <= 4)
      .map((pieces) => pieces.join(""))
    const input = fc.array(fc.constantFrom("a", "b", "/"), { maxLength: 80 }).map((chars) => chars.join(""))
    fc.assert(
      fc.property(pattern, input, (p, i) => {
        assert.strictEqual(Wildcard.match(i, p), reference(i, p, false), JSON.stringify({ p, i }))
      }),
      { numRuns: 3_000 },
    )
  })

  it("answers a pathological pattern against a 10 000-character resource promptly", () => {
    // The reference RegExp needs tens of seconds for this pattern on 48 characters.
    const resource = "a".repeat(10_000)
    assert.isFalse(Wildcard.match(resource, "*a*a*a*a*a*a*a*a*a*a*b"))
    assert.isTrue(Wildcard.match(resource + "b", "*a*a*a*a*a*a*a*a*a*a*b"))
    assert.isFalse(Wildcard.match(resource, "*a?a*a?a*a?a*a?a*a?a*b"))
    assert.isFalse(Wildcard.match(resource, "a/**/a/**/a/**/b"))
    assert.isFalse(Wildcard.match(resource, `*${"a".repeat(5_000)}b*`))
  })

  it("compiles a pattern once and reuses it", () => {
    assert.strictEqual(Wildcard.compile("src/*.ts"), Wildcard.compile("src/*.ts"))
  })
})
