import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { SseDecoder, type SseEvent } from "@core/session/provider/sse"

const encoder = new TextEncoder()

function decodeAll(pieces: ReadonlyArray<Uint8Array>, maxEventChars?: number): ReadonlyArray<SseEvent> {
  const decoder = new SseDecoder(maxEventChars)
  return [...pieces.flatMap((piece) => decoder.push(piece)), ...decoder.end()]
}

function cut(bytes: Uint8Array, offsets: ReadonlyArray<number>): ReadonlyArray<Uint8Array> {
  const points = [...new Set(offsets.map((offset) => offset % (bytes.length + 1)))].sort((a, b) => a - b)
  const pieces: Array<Uint8Array> = []
  let start = 0
  for (const point of [...points, bytes.length]) {
    pieces.push(bytes.subarray(start, point))
    start = point
  }
  return pieces
}

describe("sse", () => {
  it("decodes data fields into events, joining multi-line data and skipping comments and other fields", () => {
    const text = ': keep-alive\n\nid: 1\nretry: 10\ndata: {"a":1}\n\nevent: error\ndata:first\ndata: second\n\ndata\n\n'
    assert.deepStrictEqual(decodeAll([encoder.encode(text)]), [
      { event: undefined, data: '{"a":1}' },
      { event: "error", data: "first\nsecond" },
    ])
  })

  it("treats \\r\\n, \\r and \\n alike, also when a \\r\\n pair is cut in two", () => {
    const decoder = new SseDecoder()
    assert.deepStrictEqual(decoder.push(encoder.encode("data: a\r")), [])
    assert.deepStrictEqual(decoder.push(encoder.encode("\ndata: b\r\n\r\ndata: c\r\rdata: d\n\n")), [
      { event: undefined, data: "a\nb" },
      { event: undefined, data: "c" },
      { event: undefined, data: "d" },
    ])
  })

  it("keeps a character whose UTF-8 bytes arrive in different chunks", () => {
    const bytes = encoder.encode("data: héllo 🌍\n\n")
    const pieces = Array.from(bytes, (byte) => Uint8Array.of(byte))
    assert.deepStrictEqual(decodeAll(pieces), [{ event: undefined, data: "héllo 🌍" }])
  })

  it("delivers a last event that the stream did not close with a blank line", () => {
    assert.deepStrictEqual(decodeAll([encoder.encode("data: one\n\ndata: [DONE]")]), [
      { event: undefined, data: "one" },
      { event: undefined, data: "[DONE]" },
    ])
  })

  it("skips an event larger than the limit, whether one long line or many lines, and keeps the next ones", () => {
    const long = "x".repeat(100)
    const text = `data: small\n\ndata: ${long}\n\ndata: ${"y".repeat(30)}\ndata: ${"y".repeat(30)}\n\ndata: after\n\n`
    const expected = [
      { event: undefined, data: "small" },
      { event: undefined, data: "after" },
    ]
    const bytes = encoder.encode(text)
    assert.deepStrictEqual(decodeAll([bytes], 50), expected)
    // The long line arriving a few bytes at a time is dropped before it ends, and so is its event.
    assert.deepStrictEqual(
      decodeAll(
        Array.from({ length: Math.ceil(bytes.length / 7) }, (_, index) => bytes.subarray(index * 7, index * 7 + 7)),
        50,
      ),
      expected,
    )
  })

  it("decodes the same events wherever the bytes are cut", () => {
    const event = fc.record({
      data: fc.array(
        fc.string({ unit: "grapheme" }).filter((line) => !/[\r\n]/.test(line)),
        { minLength: 1 },
      ),
      comment: fc.boolean(),
    })
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 8 }),
        fc.constantFrom("\n", "\r\n", "\r"),
        fc.array(fc.nat(), { maxLength: 20 }),
        (events, eol, offsets) => {
          const text = events
            .map(
              ({ data, comment }) =>
                (comment ? `: note${eol}` : "") + data.map((line) => `data: ${line}${eol}`).join("") + eol,
            )
            .join("")
          const bytes = encoder.encode(text)
          const whole = decodeAll([bytes])
          assert.deepStrictEqual(decodeAll(cut(bytes, offsets)), whole)
          const expected = events
            .map(({ data }) => data.join("\n"))
            .filter((data) => data !== "")
            .map((data) => ({ event: undefined, data }))
          assert.deepStrictEqual(whole, expected)
        },
      ),
    )
  })
})
