export * as Patch from "./patch"

// The `*** Begin Patch` format of apply_patch (SPEC-CORE E.4): parsing into hunks, and deriving the
// new text of an updated file from its chunks. Pure: no IO, no Effect. Both throw PatchError.

export type Hunk =
  | { readonly type: "add"; readonly path: string; readonly contents: string }
  | { readonly type: "delete"; readonly path: string }
  | {
      readonly type: "update"
      readonly path: string
      readonly movePath?: string
      readonly chunks: ReadonlyArray<Chunk>
    }

/** One line of a chunk: kept context (` `), removed (`-`) or added (`+`). */
export type Line = readonly [op: " " | "-" | "+", text: string]

/** One `@@` section: its lines in order (context and removals must match the file). */
export interface Chunk {
  readonly lines: ReadonlyArray<Line>
  /** The text after `@@`: a line to find first; the chunk matches after it. */
  readonly changeContext?: string
  /** `*** End of File`: the chunk must match at the end of the file. */
  readonly endOfFile?: boolean
}

export class PatchError extends Error {
  override readonly name = "PatchError"
}

const BEGIN = "*** Begin Patch"
const END = "*** End Patch"
const ADD = "*** Add File:"
const DELETE = "*** Delete File:"
const UPDATE = "*** Update File:"
const MOVE = "*** Move to:"
const END_OF_FILE = "*** End of File"

/** A patch passed as a shell heredoc (`cat <<'EOF' … EOF`) is unwrapped first. */
const stripHeredoc = (input: string) =>
  input.match(/^(?:cat\s+)?<<['"]?(\w+)['"]?\s*\n([\s\S]*?)\n\1\s*$/u)?.[2] ?? input

/** Parses a patch into hunks in their order. An envelope with no hunks gives `[]`. */
export function parse(patchText: string): ReadonlyArray<Hunk> {
  const lines = stripHeredoc(patchText.replace(/\r\n/gu, "\n").trim()).split("\n")
  const begin = lines.findIndex((line) => line.trim() === BEGIN)
  const end = lines.findIndex((line, index) => index > begin && line.trim() === END)
  if (begin === -1 || end === -1) throw new PatchError("Invalid patch format: missing Begin/End markers")
  const hunks: Hunk[] = []
  let index = begin + 1
  const body = lines.slice(0, end)
  while (index < end) {
    const line = body[index]!
    if (line.startsWith(ADD)) {
      const path = line.slice(ADD.length).trim()
      if (!path) throw new PatchError("Invalid add file path")
      const contents: string[] = []
      index++
      while (index < end && !body[index]!.startsWith("***")) {
        const added = body[index]!
        if (!added.startsWith("+")) throw new PatchError(`Invalid add file line: ${added}`)
        contents.push(added.slice(1))
        index++
      }
      hunks.push({ type: "add", path, contents: contents.join("\n") })
      continue
    }
    if (line.startsWith(DELETE)) {
      const path = line.slice(DELETE.length).trim()
      if (!path) throw new PatchError("Invalid delete file path")
      hunks.push({ type: "delete", path })
      index++
      continue
    }
    if (line.startsWith(UPDATE)) {
      const path = line.slice(UPDATE.length).trim()
      if (!path) throw new PatchError("Invalid update file path")
      index++
      let movePath: string | undefined
      if (index < end && body[index]!.startsWith(MOVE)) {
        movePath = body[index]!.slice(MOVE.length).trim()
        if (!movePath) throw new PatchError("Invalid move file path")
        index++
      }
      const parsed = parseChunks(body, index, end)
      if (parsed.chunks.length === 0)
        throw new PatchError(`Invalid update hunk for ${path}: expected at least one @@ chunk`)
      hunks.push(
        movePath === undefined
          ? { type: "update", path, chunks: parsed.chunks }
          : { type: "update", path, movePath, chunks: parsed.chunks },
      )
      index = parsed.next
      continue
    }
    if (line.trim() === "") {
      index++
      continue
    }
    throw new PatchError(`Invalid patch line: ${line}`)
  }
  return hunks
}

function parseChunks(lines: ReadonlyArray<string>, start: number, end: number) {
  const chunks: Chunk[] = []
  let index = start
  while (index < end && !lines[index]!.startsWith("***")) {
    const header = lines[index]!
    if (!header.startsWith("@@")) throw new PatchError(`Invalid update file line: ${header}`)
    const changeContext = header.slice(2).trim()
    const chunkLines: Line[] = []
    let endOfFile = false
    index++
    while (index < end && !lines[index]!.startsWith("@@")) {
      const line = lines[index]!
      if (line === END_OF_FILE) {
        endOfFile = true
        index++
        break
      }
      if (line.startsWith("***")) break
      if (line.startsWith(" ") || line.startsWith("-") || line.startsWith("+"))
        chunkLines.push([line[0] as Line[0], line.slice(1)])
      // An empty line inside a chunk is an unchanged empty line whose leading space was trimmed.
      else if (line === "") chunkLines.push([" ", ""])
      else throw new PatchError(`Invalid update chunk line: ${line}`)
      index++
    }
    chunks.push({
      lines: chunkLines,
      ...(changeContext ? { changeContext } : {}),
      ...(endOfFile ? { endOfFile } : {}),
    })
  }
  return { chunks, next: index }
}

/** The lines a chunk expects in the file (context and removals). */
export const oldLinesOf = (chunk: Chunk) => chunk.lines.filter(([op]) => op !== "+").map(([, text]) => text)

/**
 * The new text of a file (`original` as read, BOM-free) after applying `chunks` in order. Context
 * lines keep the file's own text (they may have matched loosely); the file's line ending (CRLF when
 * it has any) is kept, and the result ends with a newline unless it is empty.
 */
export function derive(path: string, chunks: ReadonlyArray<Chunk>, original: string): string {
  const crlf = original.includes("\r\n")
  const lines = (crlf ? original.replace(/\r\n/gu, "\n") : original).split("\n")
  if (lines.at(-1) === "") lines.pop()
  const replacements = locate(lines, path, chunks)
  const updated = [...lines]
  for (const [start, remove, insert] of replacements.toReversed()) updated.splice(start, remove, ...insert)
  const text = updated.length === 0 ? "" : `${updated.join("\n")}\n`
  return crlf ? text.replace(/\n/gu, "\r\n") : text
}

type Replacement = readonly [start: number, remove: number, insert: ReadonlyArray<string>]

/** What replaces the matched lines starting at `at`: context from the file, additions from the chunk. */
function replacement(lines: ReadonlyArray<string>, at: number, ops: ReadonlyArray<Line>): ReadonlyArray<string> {
  const out: string[] = []
  let cursor = at
  for (const [op, text] of ops) {
    if (op === "+") out.push(text)
    else if (op === " ") out.push(lines[cursor++]!)
    else cursor++
  }
  return out
}

function locate(lines: ReadonlyArray<string>, path: string, chunks: ReadonlyArray<Chunk>) {
  const replacements: Replacement[] = []
  let cursor = 0
  for (const chunk of chunks) {
    if (chunk.changeContext) {
      const at = seek(lines, [chunk.changeContext], cursor)
      if (at === -1) throw new PatchError(`Failed to find context '${chunk.changeContext}' in ${path}`)
      cursor = at + 1
    }
    let ops = chunk.lines
    let expected = oldLinesOf(chunk)
    if (expected.length === 0) {
      // A chunk that only adds lines appends them at the end of the file.
      replacements.push([lines.length, 0, replacement(lines, lines.length, ops)])
      continue
    }
    let found = seek(lines, expected, cursor, chunk.endOfFile)
    if (found === -1 && expected.at(-1) === "") {
      // A trailing empty line models the file's final newline, which `lines` does not hold.
      const last = ops.findLastIndex(([op]) => op !== "+")
      ops = ops.filter((_, index) => index !== last)
      expected = expected.slice(0, -1)
      found = seek(lines, expected, cursor, chunk.endOfFile)
    }
    if (found === -1) throw new PatchError(`Failed to find expected lines in ${path}:\n${oldLinesOf(chunk).join("\n")}`)
    replacements.push([found, expected.length, replacement(lines, found, ops)])
    cursor = found + expected.length
  }
  return replacements.toSorted((left, right) => left[0] - right[0])
}

/** First match at or after `start`, trying exact, then trailing-space, then trimmed, then punctuation-normalized. */
function seek(lines: ReadonlyArray<string>, pattern: ReadonlyArray<string>, start: number, endOfFile = false) {
  if (pattern.length === 0) return -1
  for (const same of [exact, rstrip, trim, normalized]) {
    if (endOfFile) {
      const at = lines.length - pattern.length
      if (at >= start && matches(lines, pattern, at, same)) return at
    }
    for (let at = start; at <= lines.length - pattern.length; at++) if (matches(lines, pattern, at, same)) return at
  }
  return -1
}

const matches = (
  lines: ReadonlyArray<string>,
  pattern: ReadonlyArray<string>,
  at: number,
  same: (left: string, right: string) => boolean,
) => pattern.every((line, index) => same(lines[at + index]!, line))

const exact = (left: string, right: string) => left === right
const rstrip = (left: string, right: string) => left.trimEnd() === right.trimEnd()
const trim = (left: string, right: string) => left.trim() === right.trim()
const normalized = (left: string, right: string) => punctuation(left.trim()) === punctuation(right.trim())
const punctuation = (value: string) =>
  value
    .replace(/[\u2018\u2019\u201a\u201b]/gu, "'")
    .replace(/[\u201c\u201d\u201e\u201f]/gu, '"')
    .replace(/[\u2010\u2011\u2012\u2013\u2014\u2015]/gu, "-")
    .replace(/\u2026/gu, "...")
    .replace(/\u00a0/gu, " ")
