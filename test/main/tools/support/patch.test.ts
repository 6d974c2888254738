import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Patch } from "@main/tools/support/patch"

const envelope = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n")
const parseError = (text: string) => {
  try {
    Patch.parse(text)
  } catch (error) {
    assert.instanceOf(error, Patch.PatchError)
    return (error as Error).message
  }
  assert.fail("expected a PatchError")
}

describe("Patch", () => {
  it("parses add, update (with its chunks) and delete hunks in order", () => {
    const hunks = Patch.parse(
      envelope(
        "*** Add File: nested/new.txt",
        "+hello",
        "+world",
        "*** Update File: update.txt",
        "@@ def main():",
        " keep",
        "-old",
        "+new",
        "*** End of File",
        "*** Delete File: remove.txt",
      ),
    )
    assert.deepStrictEqual(hunks, [
      { type: "add", path: "nested/new.txt", contents: "hello\nworld" },
      {
        type: "update",
        path: "update.txt",
        chunks: [
          {
            lines: [
              [" ", "keep"],
              ["-", "old"],
              ["+", "new"],
            ],
            changeContext: "def main():",
            endOfFile: true,
          },
        ],
      },
      { type: "delete", path: "remove.txt" },
    ])
  })

  it("reads a move target after an update header", () => {
    const [hunk] = Patch.parse(envelope("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+b"))
    assert.deepStrictEqual(hunk, {
      type: "update",
      path: "a.txt",
      movePath: "b.txt",
      chunks: [
        {
          lines: [
            ["-", "a"],
            ["+", "b"],
          ],
        },
      ],
    })
  })

  it("returns no hunks for an empty envelope, and unwraps a heredoc and CRLF text", () => {
    assert.deepStrictEqual(Patch.parse(envelope()), [])
    assert.deepStrictEqual(Patch.parse(`cat <<'EOF'\n${envelope("*** Delete File: x")}\nEOF`), [
      { type: "delete", path: "x" },
    ])
    assert.deepStrictEqual(Patch.parse(envelope("*** Add File: y", "+1").replaceAll("\n", "\r\n")), [
      { type: "add", path: "y", contents: "1" },
    ])
  })

  it("names what is wrong with a malformed patch", () => {
    assert.strictEqual(parseError("*** Add File: x\n+1"), "Invalid patch format: missing Begin/End markers")
    assert.strictEqual(parseError(envelope("*** Add File:", "+1")), "Invalid add file path")
    assert.strictEqual(parseError(envelope("*** Add File: x", "no plus")), "Invalid add file line: no plus")
    assert.strictEqual(
      parseError(envelope("*** Update File: x")),
      "Invalid update hunk for x: expected at least one @@ chunk",
    )
    assert.strictEqual(parseError(envelope("*** Update File: x", "-a")), "Invalid update file line: -a")
    assert.strictEqual(parseError(envelope("*** Update File: x", "@@", "?a")), "Invalid update chunk line: ?a")
    assert.strictEqual(parseError(envelope("*** Frobnicate: x")), "Invalid patch line: *** Frobnicate: x")
  })

  it("derives an update from context, removals and additions, keeping the final newline", () => {
    const [hunk] = Patch.parse(envelope("*** Update File: f", "@@", " a", "-b", "+B", "+B2", " c"))
    assert.strictEqual(hunk?.type, "update")
    if (hunk?.type !== "update") return
    assert.strictEqual(Patch.derive("f", hunk.chunks, "a\nb\nc\n"), "a\nB\nB2\nc\n")
    assert.strictEqual(Patch.derive("f", hunk.chunks, "a\nb\nc"), "a\nB\nB2\nc\n")
  })

  it("keeps CRLF line endings and the file's own text of loosely matched context lines", () => {
    const [hunk] = Patch.parse(envelope("*** Update File: f", "@@", " say 'hi'", "-two  ", "+TWO"))
    if (hunk?.type !== "update") return assert.fail("update expected")
    assert.strictEqual(Patch.derive("f", hunk.chunks, "say \u2018hi\u2019\r\ntwo\r\n"), "say \u2018hi\u2019\r\nTWO\r\n")
  })

  it("finds the @@ context line first and anchors an End of File chunk at the end", () => {
    const [hunk] = Patch.parse(
      envelope("*** Update File: f", "@@ section two", "-x", "+y", "@@", "-x", "+z", "*** End of File"),
    )
    if (hunk?.type !== "update") return assert.fail("update expected")
    const original = ["section one", "x", "section two", "x", "middle", "x"].join("\n") + "\n"
    assert.strictEqual(
      Patch.derive("f", hunk.chunks, original),
      ["section one", "x", "section two", "y", "middle", "z"].join("\n") + "\n",
    )
  })

  it("treats a blank line inside a chunk as empty context, also when it stands for the final newline", () => {
    const [hunk] = Patch.parse(envelope("*** Update File: f", "@@", " a", "", "-b", "+c", ""))
    if (hunk?.type !== "update") return assert.fail("update expected")
    assert.strictEqual(Patch.derive("f", hunk.chunks, "a\n\nb\n"), "a\n\nc\n")
  })

  it("appends a chunk that only adds lines at the end of the file", () => {
    const [hunk] = Patch.parse(envelope("*** Update File: f", "@@", "+tail"))
    if (hunk?.type !== "update") return assert.fail("update expected")
    assert.strictEqual(Patch.derive("f", hunk.chunks, "head\n"), "head\ntail\n")
  })

  it("fails with the expected lines when they are not in the file", () => {
    const [hunk] = Patch.parse(envelope("*** Update File: f", "@@ nowhere", "-a", "+b"))
    if (hunk?.type !== "update") return assert.fail("update expected")
    assert.throws(
      () => Patch.derive("f", hunk.chunks, "a\n"),
      Patch.PatchError,
      "Failed to find context 'nowhere' in f",
    )
    const [other] = Patch.parse(envelope("*** Update File: f", "@@", "-missing", "+b"))
    if (other?.type !== "update") return assert.fail("update expected")
    assert.throws(() => Patch.derive("f", other.chunks, "a\n"), Patch.PatchError, "Failed to find expected lines in f")
  })

  it("never throws anything but a PatchError, whatever the text", () => {
    const line = fc.oneof(
      fc.constantFrom(
        "*** Begin Patch",
        "*** End Patch",
        "*** Add File: a",
        "*** Update File: a",
        "*** Delete File: a",
      ),
      fc.constantFrom("*** Move to: b", "@@", "@@ ctx", "*** End of File", ""),
      fc.tuple(fc.constantFrom("+", "-", " ", ""), fc.string()).map(([prefix, text]) => prefix + text),
    )
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.string(), (lines, original) => {
        try {
          for (const hunk of Patch.parse(lines.join("\n")))
            if (hunk.type === "update") Patch.derive(hunk.path, hunk.chunks, original)
        } catch (error) {
          if (!(error instanceof Patch.PatchError)) throw error
        }
      }),
    )
  })
})
