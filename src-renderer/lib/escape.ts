// Text that agents control (commands, paths, URLs, questions) reaches the person only through
// here. A control character, an ANSI escape or a bidi override could make what is shown differ
// from what runs (RELIABILITY §5 item 22), so every such character is shown as an escape
// sequence instead of being rendered: ESC becomes `\x1b`, U+202E becomes `\u202e`.

/**
 * Characters never rendered raw: C0/C1 controls and DEL (Cc), format characters (Cf: bidi
 * embeddings, overrides and isolates, LRM/RLM/ALM, zero-width characters, BOM, the invisible tag
 * characters), line and paragraph separators (Zl, Zp) and unpaired surrogates (Cs).
 */
const hidden = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu
const anyHidden = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u

const named: Readonly<Record<string, string>> = {
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\0": "\\0",
}

/** One piece of displayed text: literal text, or the escape that stands for a hidden character. */
export interface Segment {
  readonly kind: "text" | "escape"
  readonly value: string
}

export interface EscapeOptions {
  /** Keep `\n` and `\t` as they are (for blocks such as commands and diffs); default false. */
  readonly multiline?: boolean
}

/** The visible escape for one hidden character: `\n`, `\x1b`, `\u202e`, `\u{e0041}`. */
export function escapeCharacter(character: string): string {
  const name = named[character]
  if (name) return name
  const code = character.codePointAt(0) ?? 0
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`
  return `\\u{${code.toString(16)}}`
}

/** Splits `text` into literal runs and escapes, in order; joining the values gives {@link escapeForDisplay}. */
export function escapeSegments(text: string, options: EscapeOptions = {}): ReadonlyArray<Segment> {
  const segments: Array<Segment> = []
  let last = 0
  for (const match of text.matchAll(hidden)) {
    const character = match[0]
    if (options.multiline && (character === "\n" || character === "\t")) continue
    if (match.index > last) segments.push({ kind: "text", value: text.slice(last, match.index) })
    segments.push({ kind: "escape", value: escapeCharacter(character) })
    last = match.index + character.length
  }
  if (last < text.length) segments.push({ kind: "text", value: text.slice(last) })
  return segments
}

/** `text` with every hidden character replaced by its visible escape (see {@link escapeSegments}). */
export function escapeForDisplay(text: string, options: EscapeOptions = {}): string {
  if (!anyHidden.test(text)) return text
  return escapeSegments(text, options)
    .map((segment) => segment.value)
    .join("")
}

/** Whether `text` holds anything {@link escapeForDisplay} would escape (besides `\n`/`\t` when multiline). */
export function hasHiddenCharacters(text: string, options: EscapeOptions = {}): boolean {
  return escapeSegments(text, options).some((segment) => segment.kind === "escape")
}

/** What a long text shows while it is collapsed: its head and its tail, never silently less. */
export interface Clipped {
  readonly head: string
  /** Empty when nothing is hidden. */
  readonly tail: string
  /** UTF-16 code units left out between head and tail (0: the text is shown whole). */
  readonly hiddenChars: number
  readonly hiddenLines: number
}

/** Moves an index off the middle of a surrogate pair, so a cut never makes a lone surrogate. */
function boundary(text: string, index: number): number {
  const code = text.charCodeAt(index)
  return index > 0 && index < text.length && code >= 0xdc00 && code <= 0xdfff ? index - 1 : index
}

/**
 * Cuts a long text into a head and a tail around a hidden middle, so the end of a command (where
 * an attacker would put `; rm -rf ~`) is always on screen, and the caller says how much is hidden.
 * Texts up to `headChars + tailChars` characters and `maxLines` lines come back whole.
 */
export function clipMiddle(text: string, limits: { headChars: number; tailChars: number; maxLines: number }): Clipped {
  const lines = text.split("\n")
  if (text.length <= limits.headChars + limits.tailChars && lines.length <= limits.maxLines)
    return { head: text, tail: "", hiddenChars: 0, hiddenLines: 0 }
  const headLines = Math.max(1, Math.ceil(limits.maxLines / 2))
  const tailLines = Math.max(1, limits.maxLines - headLines)
  let headEnd = Math.min(text.length, limits.headChars)
  const headBreak = nthIndexOf(text, "\n", headLines)
  if (headBreak !== -1 && headBreak < headEnd) headEnd = headBreak + 1
  let tailStart = Math.max(headEnd, text.length - limits.tailChars)
  const tailBreak = nthLastIndexOf(text, "\n", tailLines)
  if (tailBreak !== -1 && tailBreak + 1 > tailStart) tailStart = tailBreak + 1
  headEnd = boundary(text, headEnd)
  tailStart = boundary(text, tailStart)
  if (tailStart <= headEnd) return { head: text, tail: "", hiddenChars: 0, hiddenLines: 0 }
  const middle = text.slice(headEnd, tailStart)
  return {
    head: text.slice(0, headEnd),
    tail: text.slice(tailStart),
    hiddenChars: middle.length,
    hiddenLines: middle.split("\n").length - 1,
  }
}

function nthIndexOf(text: string, search: string, n: number): number {
  let index = -1
  for (let i = 0; i < n; i++) {
    index = text.indexOf(search, index + 1)
    if (index === -1) return -1
  }
  return index
}

function nthLastIndexOf(text: string, search: string, n: number): number {
  let index = text.length
  for (let i = 0; i < n; i++) {
    index = text.lastIndexOf(search, index - 1)
    if (index === -1) return -1
  }
  return index
}
