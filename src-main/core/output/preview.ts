// The head/tail preview a model reads in place of an over-limit output (SPEC-CORE C.3). Pure
// functions over strings. They never copy or split the whole text, so a 50 MB output costs a few
// scans, not an array of its lines.

const utf8Length = (text: string): number => Buffer.byteLength(text, "utf8")

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

/** UTF-8 size of the code point whose first UTF-16 unit is at `index` (lone surrogates encode as U+FFFD). */
function codePointAt(text: string, index: number): { readonly units: number; readonly bytes: number } {
  const code = text.charCodeAt(index)
  if (code < 0x80) return { units: 1, bytes: 1 }
  if (code < 0x800) return { units: 1, bytes: 2 }
  if (isHighSurrogate(code) && index + 1 < text.length && isLowSurrogate(text.charCodeAt(index + 1)))
    return { units: 2, bytes: 4 }
  return { units: 1, bytes: 3 }
}

/** The longest prefix of whole code points whose UTF-8 size is at most `maxBytes`. */
export function takePrefix(text: string, maxBytes: number): string {
  let bytes = 0
  let index = 0
  while (index < text.length) {
    const point = codePointAt(text, index)
    if (bytes + point.bytes > maxBytes) break
    bytes += point.bytes
    index += point.units
  }
  return text.slice(0, index)
}

/** The longest suffix of whole code points whose UTF-8 size is at most `maxBytes`. */
export function takeSuffix(text: string, maxBytes: number): string {
  let bytes = 0
  let index = text.length
  while (index > 0) {
    let start = index - 1
    if (isLowSurrogate(text.charCodeAt(start)) && start > 0 && isHighSurrogate(text.charCodeAt(start - 1))) start -= 1
    const size = codePointAt(text, start).bytes
    if (bytes + size > maxBytes) break
    bytes += size
    index = start
  }
  return text.slice(index)
}

/** Lines as `text.split("\n").length` counts them: a trailing newline ends with an empty line. */
export function countLines(text: string): number {
  let lines = 1
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines += 1
  return lines
}

/** Index of the `n`-th newline (1-based) from the start, or -1. */
function nthNewline(text: string, n: number): number {
  let at = -1
  for (let i = 0; i < n; i++) {
    at = text.indexOf("\n", at + 1)
    if (at === -1) return -1
  }
  return at
}

/** Index of the `n`-th newline (1-based) counted from the end, or -1. */
function nthNewlineFromEnd(text: string, n: number): number {
  let at = text.length
  for (let i = 0; i < n; i++) {
    if (at === 0) return -1
    at = text.lastIndexOf("\n", at - 1)
    if (at === -1) return -1
  }
  return at
}

export interface Preview {
  readonly head: string
  readonly tail: string
}

/**
 * Samples `maxLines` lines (the first ceil(L/2) and the last floor(L/2)), then, if the sample is
 * still over `maxBytes`, keeps ceil(B/2) bytes from its start and floor(B/2) from its end.
 *
 * Deliberate difference from the reference, which byte-cuts the joined sample: when the head lines
 * are shorter than their half (or the tail lines shorter than theirs) that cut runs across the
 * join and glues the first lines to the middle of the last ones, with nothing showing the gap (and
 * with a one-line sample its "tail" is the end of line 1). Here the head is always a prefix of the
 * text and the tail a suffix of it, and a side that needs less than its half leaves the rest to the
 * other. Whenever no cut crosses the join the result is the reference's.
 */
export function preview(text: string, maxLines: number, maxBytes: number): Preview {
  const headLines = Math.ceil(maxLines / 2)
  const tailLines = Math.floor(maxLines / 2)
  const total = countLines(text)
  if (total <= maxLines) {
    if (utf8Length(text) <= maxBytes) return { head: text, tail: "" }
    return { head: takePrefix(text, Math.ceil(maxBytes / 2)), tail: takeSuffix(text, Math.floor(maxBytes / 2)) }
  }
  const head = headLines > 0 ? text.slice(0, nthNewline(text, headLines)) : ""
  const tail = tailLines > 0 ? text.slice(nthNewlineFromEnd(text, tailLines) + 1) : ""
  const headBytes = utf8Length(head)
  const tailBytes = utf8Length(tail)
  const joined = headBytes + (tailLines > 0 ? 1 + tailBytes : 0)
  if (joined <= maxBytes) return { head, tail }
  const headBudget = Math.ceil(maxBytes / 2)
  const tailBudget = Math.floor(maxBytes / 2)
  if (headBytes < headBudget) return { head, tail: takeSuffix(tail, maxBytes - headBytes) }
  if (tailBytes < tailBudget) return { head: takePrefix(head, maxBytes - tailBytes), tail }
  return { head: takePrefix(head, headBudget), tail: takeSuffix(tail, tailBudget) }
}

/** The exact line that tells the model where the full output is. */
export const marker = (path: string): string => `... output truncated; full content saved to ${path} ...`

/**
 * `head`, a blank line, the marker, a blank line, `tail`. The result never exceeds `maxLines`
 * lines or `maxBytes` UTF-8 bytes; when the limits leave no room for a sample it is the marker
 * alone, cut to fit.
 */
export function boundedPreview(text: string, markerLine: string, maxLines: number, maxBytes: number): string {
  const markerBytes = utf8Length(markerLine)
  if (maxLines <= 4 || maxBytes <= markerBytes + 4) {
    const cut = takePrefix(markerLine, maxBytes)
    if (maxLines <= 0) return ""
    const newline = nthNewline(cut, maxLines)
    return newline === -1 ? cut : cut.slice(0, newline)
  }
  const sample = preview(text, maxLines - 4, maxBytes - markerBytes - 4)
  return sample.tail ? `${sample.head}\n\n${markerLine}\n\n${sample.tail}` : `${sample.head}\n\n${markerLine}`
}
