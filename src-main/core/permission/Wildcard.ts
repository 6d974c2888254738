export * as Wildcard from "./Wildcard"

// The permission glob of SPEC-CORE D.2, compiled once per pattern into a matcher that never
// backtracks (project decision 1). The reference translates the pattern into a RegExp on every call;
// a rule such as `*a*a*a*a*a*a*a*a*a*a*b` then takes exponential time on a model-supplied resource.
//
// Semantics (identical to the reference translation, which the property test uses as its oracle):
// - `\` is read as `/` on both sides;
// - `*` is any run of characters (also `/` and newlines), `?` exactly one UTF-16 code unit;
// - `**/` also matches nothing at all, so `**/.env*` covers a root `.env` (the D.2 examples);
// - a pattern ending in ` *` also matches without that tail: `git push *` matches `git push`;
// - the whole input must match; letters compare case-insensitively only on Windows, with the
//   simple per-code-unit folding of a RegExp `i` flag.
//
// Cost: `*`-separated literal segments are matched left to right, each at its leftmost place (KMP),
// which is O(input + pattern). Segments containing `?` use a bit-parallel Shift-And scan, and the
// rare pattern that keeps a `**/` between literals runs as a bit-parallel NFA: O(input × ⌈states/32⌉).

const IGNORE_CASE = process.platform === "win32"

const STAR = -1
const ANY = -2
const OPTDIR = -3
const SLASH = 47
const SPACE = 32

/** A compiled pattern. `test` takes an input already passed through {@link normalize}. */
export interface Matcher {
  readonly pattern: string
  readonly test: (normalizedInput: string) => boolean
  /** The UTF-16 code every matching normalized input starts with, or -1 (`*x`, `?x`, ` *`, …). */
  readonly first: number
}

/** Whether `input` matches `pattern` (both raw; see the module comment for the semantics). */
export function match(input: string, pattern: string): boolean {
  return compile(pattern).test(normalize(input))
}

/** The form of an input that compiled matchers expect; normalize once, test against many rules. */
export function normalize(input: string, ignoreCase: boolean = IGNORE_CASE): string {
  const slashed = input.includes("\\") ? input.replaceAll("\\", "/") : input
  return ignoreCase ? fold(slashed) : slashed
}

const CACHE_LIMIT = 10_000
const caches = { sensitive: new Map<string, Matcher>(), insensitive: new Map<string, Matcher>() }

/**
 * The matcher for a pattern, from a bounded cache. Patterns can come from saved approvals whose
 * text the model chose (an exact bash command), so the cache evicts its oldest entry when full.
 */
export function compile(pattern: string, ignoreCase: boolean = IGNORE_CASE): Matcher {
  const cache = ignoreCase ? caches.insensitive : caches.sensitive
  let matcher = cache.get(pattern)
  if (matcher === undefined) {
    matcher = { pattern, ...build(pattern, ignoreCase) }
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!)
    cache.set(pattern, matcher)
  }
  return matcher
}

type Test = (input: string) => boolean

function build(pattern: string, ignoreCase: boolean): { test: Test; first: number } {
  const tokens = tokenize(normalize(pattern, ignoreCase))
  const n = tokens.length
  const tail = n >= 2 && tokens[n - 1] === STAR && tokens[n - 2] === SPACE
  // With an optional tail the shortest match is the part before ` *`, which may be empty.
  const first = tokens[0] !== undefined && tokens[0] >= 0 && !(tail && n === 2) ? tokens[0] : -1
  return { test: buildTest(tokens), first }
}

function buildTest(tokens: number[]): Test {
  const n = tokens.length
  // The reference makes the tail optional when its RegExp text ends in " .*", which happens exactly
  // when the last two tokens are a literal space and a single `*` (not `**`, not `?*`).
  if (n >= 2 && tokens[n - 1] === STAR && tokens[n - 2] === SPACE) {
    const core = tokens.slice(0, n - 2)
    if (core.every((token) => token >= 0)) {
      // The common command prefix (`git push *`): the words alone, or the words and a space.
      const words = segment(core).text
      const prefix = `${words} `
      return (input) => input.startsWith(prefix) || input === words
    }
    const without = fromTokens(reduce(core))
    const withTail = fromTokens(reduce(tokens))
    return (input) => without(input) || withTail(input)
  }
  return fromTokens(reduce(tokens))
}

function tokenize(pattern: string): number[] {
  const tokens: number[] = []
  for (let i = 0; i < pattern.length; i++) {
    const code = pattern.charCodeAt(i)
    if (code === 42) {
      if (pattern.charCodeAt(i + 1) === 42 && pattern.charCodeAt(i + 2) === SLASH) {
        tokens.push(OPTDIR)
        i += 2
      } else tokens.push(STAR)
    } else tokens.push(code === 63 ? ANY : code)
  }
  return tokens
}

/**
 * Collapses each run of `*` and `**\/` tokens: a run with a `*` is one `*` (`.*(.*\/)?` and
 * `(.*\/)?.*` both equal `.*`), a run of `**\/` alone is one `**\/`. Afterwards no `**\/` touches
 * another wildcard run, which keeps the NFA's epsilon closure to a single step.
 */
function reduce(tokens: ReadonlyArray<number>): number[] {
  const out: number[] = []
  for (let i = 0; i < tokens.length;) {
    const token = tokens[i]!
    if (token !== STAR && token !== OPTDIR) {
      out.push(token)
      i++
      continue
    }
    let star = false
    for (; i < tokens.length && (tokens[i] === STAR || tokens[i] === OPTDIR); i++) {
      if (tokens[i] === STAR) star = true
    }
    out.push(star ? STAR : OPTDIR)
  }
  return out
}

function fromTokens(tokens: ReadonlyArray<number>): Test {
  if (tokens.includes(OPTDIR)) return nfaTest(tokens)
  const segments: Segment[] = []
  let current: number[] = []
  for (const token of tokens) {
    if (token === STAR) {
      segments.push(segment(current))
      current = []
    } else current.push(token)
  }
  segments.push(segment(current))
  return globTest(segments)
}

// --- Globs of literal segments separated by `*` ------------------------------------------------

interface Segment {
  /** The segment's characters; `?` positions hold a placeholder and are listed in `any`. */
  readonly text: string
  readonly length: number
  readonly any: Uint8Array | undefined
  /** KMP failure table (literal segments) or Shift-And masks (segments with `?`). */
  readonly search: (input: string, from: number, to: number) => number
}

function segment(tokens: ReadonlyArray<number>): Segment {
  let text = ""
  for (const t of tokens) text += String.fromCharCode(t === ANY ? 0 : t)
  const hasAny = tokens.includes(ANY)
  const any = hasAny ? Uint8Array.from(tokens, (t) => (t === ANY ? 1 : 0)) : undefined
  return { text, length: tokens.length, any, search: hasAny ? shiftAnd(tokens) : kmp(text) }
}

function matchesAt(input: string, at: number, seg: Segment): boolean {
  if (seg.any === undefined) return input.startsWith(seg.text, at)
  for (let i = 0; i < seg.length; i++) {
    if (seg.any[i] === 0 && input.charCodeAt(at + i) !== seg.text.charCodeAt(i)) return false
  }
  return true
}

function globTest(segments: ReadonlyArray<Segment>): Test {
  const first = segments[0]!
  if (segments.length === 1) {
    if (first.any === undefined) {
      const text = first.text
      return (input) => input === text
    }
    return (input) => input.length === first.length && matchesAt(input, 0, first)
  }
  const last = segments.at(-1)!
  const middle = segments.slice(1, -1).filter((s) => s.length > 0)
  const minLength = segments.reduce((sum, s) => sum + s.length, 0)
  if (middle.length === 0 && first.any === undefined && last.any === undefined) {
    const head = first.text
    const tail = last.text
    if (tail.length === 0) return head.length === 0 ? () => true : (input) => input.startsWith(head)
    if (head.length === 0) return (input) => input.endsWith(tail)
    return (input) => input.length >= minLength && input.startsWith(head) && input.endsWith(tail)
  }
  return (input) => {
    const n = input.length
    if (n < minLength) return false
    const end = n - last.length
    if (!matchesAt(input, 0, first) || !matchesAt(input, end, last)) return false
    // After a `*`, taking each segment at its leftmost place is never worse: a later `*` can
    // absorb whatever an earlier placement leaves over.
    let at = first.length
    for (const seg of middle) {
      const found = seg.search(input, at, end)
      if (found < 0) return false
      at = found + seg.length
    }
    return true
  }
}

/** Leftmost occurrence of a literal segment inside `input[from, to)`, in O(to − from + length). */
function kmp(text: string): Segment["search"] {
  const m = text.length
  const fail = new Int32Array(m)
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && text.charCodeAt(i) !== text.charCodeAt(k)) k = fail[k - 1]!
    if (text.charCodeAt(i) === text.charCodeAt(k)) k++
    fail[i] = k
  }
  return (input, from, to) => {
    for (let i = from, k = 0; i < to; i++) {
      const code = input.charCodeAt(i)
      while (k > 0 && code !== text.charCodeAt(k)) k = fail[k - 1]!
      if (code === text.charCodeAt(k)) k++
      if (k === m) return i - m + 1
    }
    return -1
  }
}

/** Leftmost occurrence of a segment with `?` positions, bit-parallel over 32-state words. */
function shiftAnd(tokens: ReadonlyArray<number>): Segment["search"] {
  const m = tokens.length
  const words = Math.ceil(m / 32)
  const anyMask = new Int32Array(words)
  tokens.forEach((t, j) => {
    if (t === ANY) anyMask[j >>> 5]! |= 1 << (j & 31)
  })
  const masks = new Map<number, Int32Array>()
  tokens.forEach((t, j) => {
    if (t === ANY) return
    let mask = masks.get(t)
    if (mask === undefined) masks.set(t, (mask = Int32Array.from(anyMask)))
    mask[j >>> 5]! |= 1 << (j & 31)
  })
  const lastWord = (m - 1) >>> 5
  const lastBit = 1 << ((m - 1) & 31)
  return (input, from, to) => {
    const state = new Int32Array(words)
    for (let i = from; i < to; i++) {
      const mask = masks.get(input.charCodeAt(i)) ?? anyMask
      let carry = 1
      for (let w = 0; w < words; w++) {
        const old = state[w]!
        state[w] = ((old << 1) | carry) & mask[w]!
        carry = old >>> 31
      }
      if ((state[lastWord]! & lastBit) !== 0) return i - m + 1
    }
    return -1
  }
}

// --- Patterns that keep a `**/` between literals: a bit-parallel NFA ---------------------------

/**
 * States 0..K; state j steps to j+1 on a character its token accepts, `*` puts a self-loop on the
 * state it follows, and `**\/` at state j adds the edges j→j+1 (empty, into a looping state that
 * must then read `/`) and j→j+2 (skip it entirely).
 */
function nfaTest(tokens: ReadonlyArray<number>): Test {
  const steps: number[] = []
  const loops: number[] = []
  const skips: number[] = []
  for (const token of tokens) {
    const state = steps.length
    if (token === STAR) loops.push(state)
    else if (token === OPTDIR) {
      skips.push(state)
      steps.push(Number.NaN, SLASH)
      loops.push(state + 1)
    } else steps.push(token)
  }
  const states = steps.length + 1
  const words = Math.ceil(states / 32)
  const bits = (list: Iterable<number>) => {
    const mask = new Int32Array(words)
    for (const state of list) mask[state >>> 5]! |= 1 << (state & 31)
    return mask
  }
  const loopMask = bits(loops)
  const skipMask = bits(skips)
  const anyMask = bits(steps.flatMap((t, j) => (t === ANY ? [j + 1] : [])))
  const masks = new Map<number, Int32Array>()
  steps.forEach((t, j) => {
    if (t === ANY || Number.isNaN(t)) return
    let mask = masks.get(t)
    if (mask === undefined) masks.set(t, (mask = Int32Array.from(anyMask)))
    mask[(j + 1) >>> 5]! |= 1 << ((j + 1) & 31)
  })
  const acceptWord = (states - 1) >>> 5
  const acceptBit = 1 << ((states - 1) & 31)
  if (words === 1) return nfaTestSmall(masks, anyMask[0]!, loopMask[0]!, skipMask[0]!, acceptBit)

  // Adds the targets of both `**/` edges of every active skip state. No chains exist after `reduce`.
  const close = (state: Int32Array) => {
    let carry1 = 0
    let carry2 = 0
    for (let w = 0; w < words; w++) {
      const from = state[w]! & skipMask[w]!
      const next1 = (from << 1) | carry1
      const next2 = (from << 2) | carry2
      carry1 = from >>> 31
      carry2 = from >>> 30
      state[w]! |= next1 | next2
    }
  }

  return (input) => {
    let state = new Int32Array(words)
    let next = new Int32Array(words)
    state[0] = 1
    close(state)
    for (let i = 0; i < input.length; i++) {
      const mask = masks.get(input.charCodeAt(i)) ?? anyMask
      let carry = 0
      let alive = 0
      for (let w = 0; w < words; w++) {
        const old = state[w]!
        next[w] = (((old << 1) | carry) & mask[w]!) | (old & loopMask[w]!)
        carry = old >>> 31
        alive |= next[w]!
      }
      if (alive === 0) return false
      close(next)
      ;[state, next] = [next, state]
    }
    return (state[acceptWord]! & acceptBit) !== 0
  }
}

/** The same NFA when its states fit one 32-bit word (nearly always): no allocation per call. */
function nfaTestSmall(
  wordMasks: ReadonlyMap<number, Int32Array>,
  anyMask: number,
  loopMask: number,
  skipMask: number,
  acceptBit: number,
): Test {
  const masks = new Map<number, number>()
  for (const [code, mask] of wordMasks) masks.set(code, mask[0]!)
  const close = (state: number) => {
    const from = state & skipMask
    return state | (from << 1) | (from << 2)
  }
  const start = close(1)
  return (input) => {
    let state = start
    for (let i = 0; i < input.length; i++) {
      state = close(((state << 1) & (masks.get(input.charCodeAt(i)) ?? anyMask)) | (state & loopMask))
      if (state === 0) return false
    }
    return (state & acceptBit) !== 0
  }
}

// --- Case folding of a non-unicode RegExp `i` flag ----------------------------------------------

let foldTable: Int32Array | undefined

function canonical(code: number): number {
  foldTable ??= new Int32Array(65536).fill(-1)
  let folded = foldTable[code]!
  if (folded < 0) {
    const upper = String.fromCharCode(code).toUpperCase()
    const unit = upper.charCodeAt(0)
    // ECMA-262 Canonicalize: keep characters whose upper case is not one unit, or that would
    // fold from outside ASCII into it (ſ → S, ı → I).
    folded = upper.length !== 1 || (code >= 128 && unit < 128) ? code : unit
    foldTable[code] = folded
  }
  return folded
}

function fold(text: string): string {
  let out = ""
  for (let i = 0; i < text.length; i++) out += String.fromCharCode(canonical(text.charCodeAt(i)))
  return out
}
