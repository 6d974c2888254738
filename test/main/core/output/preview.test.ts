import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { boundedPreview, countLines, marker, preview, takePrefix, takeSuffix } from "@core/output/preview"

const bytes = (text: string) => Buffer.byteLength(text, "utf8")
/** No lone surrogate: a split emoji would come back from UTF-8 as U+FFFD. */
const wellFormed = (text: string) => Buffer.from(text, "utf8").toString("utf8") === text
const path = "/data/tool-output/tool_0194c3a1b2c3d4e5Ab3dE5fG7hJ9"
const markerLine = marker(path)

/** Text with multi-byte characters, emoji (surrogate pairs) and many newlines. */
const text = fc.string({
  unit: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom("a", "b", " ") },
    { weight: 3, arbitrary: fc.constant("\n") },
    { weight: 2, arbitrary: fc.constantFrom("é", "漢", "😀", "👩‍💻", "\u{10FFFF}") },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 3 }) },
  ),
  maxLength: 600,
})

describe("preview", () => {
  it("writes the marker line exactly", () => {
    assert.strictEqual(marker("/x/tool_1"), "... output truncated; full content saved to /x/tool_1 ...")
  })

  it("never exceeds the line and byte limits, for any text and limits", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 1500 }), (input, lines, size) => {
        const result = boundedPreview(input, markerLine, lines, size)
        return countLines(result) <= lines && bytes(result) <= size && wellFormed(result)
      }),
    )
  })

  it("always contains the marker when the limits leave room for it, else a cut of the marker alone", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 1500 }), (input, lines, size) => {
        const result = boundedPreview(input, markerLine, lines, size)
        if (lines > 4 && size > bytes(markerLine) + 4) return result.includes(`\n\n${markerLine}`)
        return markerLine.startsWith(result)
      }),
    )
  })

  it("keeps a head that is a prefix and a tail that is a suffix of the original", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 5, max: 40 }), fc.integer({ min: 0, max: 1200 }), (input, lines, extra) => {
        const size = bytes(markerLine) + 5 + extra
        const sample = preview(input, lines - 4, size - bytes(markerLine) - 4)
        const result = boundedPreview(input, markerLine, lines, size)
        const expected = sample.tail
          ? `${sample.head}\n\n${markerLine}\n\n${sample.tail}`
          : `${sample.head}\n\n${markerLine}`
        return (
          result === expected &&
          input.startsWith(sample.head) &&
          input.endsWith(sample.tail) &&
          wellFormed(sample.head) &&
          wellFormed(sample.tail)
        )
      }),
    )
  })

  it("takes the longest prefix and suffix of whole code points within the byte budget", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 400 }), (input, budget) => {
        const prefix = takePrefix(input, budget)
        const suffix = takeSuffix(input, budget)
        const next = String.fromCodePoint(input.slice(prefix.length).codePointAt(0) ?? 0)
        const previous = [...input.slice(0, input.length - suffix.length)].at(-1) ?? ""
        return (
          input.startsWith(prefix) &&
          input.endsWith(suffix) &&
          bytes(prefix) <= budget &&
          bytes(suffix) <= budget &&
          wellFormed(prefix) &&
          wellFormed(suffix) &&
          (prefix.length === input.length || bytes(prefix) + bytes(next) > budget) &&
          (suffix.length === input.length || bytes(suffix) + bytes(previous) > budget)
        )
      }),
    )
  })

  it("never splits an emoji, even when the budget ends inside one", () => {
    assert.strictEqual(takePrefix("😀😀", 7), "😀")
    assert.strictEqual(takeSuffix("😀😀", 7), "😀")
    assert.strictEqual(takePrefix("é", 1), "")
    assert.strictEqual(takeSuffix("aé", 2), "é")
  })

  it("counts lines the way split does, a trailing newline adding an empty one", () => {
    for (const sample of ["", "a", "a\n", "a\nb", "\n\n", "x\ny\nz\n"])
      assert.strictEqual(countLines(sample), sample.split("\n").length, JSON.stringify(sample))
  })

  it("shows the first and last lines around a blank-line-framed marker for a long output", () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i}`)
    const result = boundedPreview(lines.join("\n"), markerLine, 2000, 50 * 1024)
    const expected = [...lines.slice(0, 998), "", markerLine, "", ...lines.slice(2002)].join("\n")
    assert.strictEqual(result, expected)
    assert.strictEqual(countLines(result), 1999)
  })

  it("samples bytes from both ends of one oversized line", () => {
    const line = "a".repeat(40_000) + "b".repeat(40_000)
    const result = boundedPreview(line, markerLine, 2000, 1000)
    const room = 1000 - bytes(markerLine) - 4
    assert.strictEqual(
      result,
      `${"a".repeat(Math.ceil(room / 2))}\n\n${markerLine}\n\n${"b".repeat(Math.floor(room / 2))}`,
    )
  })

  it("never glues the first lines to the middle of the last ones when the head lines are short", () => {
    // Head lines "1", "2"; tail lines "x…x", "5". Cutting the joined sample would give "1\n2\nxxx…".
    const input = ["1", "2", "3", "x".repeat(10_000), "5"].join("\n")
    const sample = preview(input, 4, 200)
    assert.strictEqual(sample.head, "1\n2")
    assert.strictEqual(sample.tail, "x".repeat(195) + "\n5")
    assert.isAtMost(bytes(sample.head) + bytes(sample.tail), 200)
  })

  it("returns the marker alone, cut to fit, when the limits leave no room for a sample", () => {
    assert.strictEqual(boundedPreview("a\n".repeat(100), markerLine, 4, 10_000), markerLine)
    assert.strictEqual(boundedPreview("a\n".repeat(100), markerLine, 100, 20), markerLine.slice(0, 20))
  })
})
