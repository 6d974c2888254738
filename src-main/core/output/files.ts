import { open, type FileHandle } from "node:fs/promises"
import { StringDecoder } from "node:string_decoder"

// Streaming I/O for managed output files. Writing converts the text in slices and reading decodes
// fixed-size chunks, so neither side ever holds a second whole copy of a large output.

const WRITE_CHUNK_UNITS = 1 << 20
const READ_CHUNK_BYTES = 1 << 16

function abortError(): Error {
  const error = new Error("The operation was aborted")
  error.name = "AbortError"
  return error
}

/**
 * Writes all of `text` as UTF-8 through one reused buffer, a slice at a time, stopping between
 * slices once aborted. One UTF-16 unit never takes more than 3 UTF-8 bytes, so a slice always fits.
 */
export async function writeText(handle: FileHandle, text: string, signal: AbortSignal): Promise<void> {
  const buffer = Buffer.allocUnsafe(Math.min(text.length, WRITE_CHUNK_UNITS) * 3)
  let start = 0
  while (start < text.length) {
    if (signal.aborted) throw abortError()
    let end = Math.min(text.length, start + WRITE_CHUNK_UNITS)
    // Never cut between the halves of a surrogate pair: each would encode as U+FFFD.
    const last = text.charCodeAt(end - 1)
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1
    const length = buffer.write(text.slice(start, end), 0, "utf8")
    let written = 0
    while (written < length) {
      const result = await handle.write(buffer, written, length - written)
      written += result.bytesWritten
    }
    start = end
  }
}

export interface ScanOptions {
  /** Lines to skip before the page starts (0-based index of the first line considered). */
  readonly offset: number
  /** Most lines to return. */
  readonly limit: number
  /** When set, only lines containing it (case-insensitively) are returned. */
  readonly search?: string | undefined
  /** Longer lines are cut to this many UTF-16 units and flagged. */
  readonly maxLineLength: number
}

export interface ScannedLine {
  /** 1-based line number in the file. */
  readonly number: number
  readonly text: string
  /** The line was longer than the page shows. */
  readonly cut: boolean
}

export interface ScanResult {
  readonly lines: ReadonlyArray<ScannedLine>
  /** Where the next page starts (a 0-based line index), or undefined at the end of the file. */
  readonly nextOffset: number | undefined
}

/**
 * Reads one page of lines from `path` (lines as `split("\n")` counts them). Memory stays bounded
 * by the chunk size plus one page, even for a single line of many megabytes: a line is kept only
 * up to `maxLineLength`, and a search carries just the last `search.length - 1` characters across
 * chunks.
 */
export async function scanLines(path: string, options: ScanOptions, signal: AbortSignal): Promise<ScanResult> {
  const needle = options.search ? options.search.toLowerCase() : undefined
  const carryLength = needle ? needle.length - 1 : 0
  const lines: Array<ScannedLine> = []
  let index = 0
  let kept = ""
  let cut = false
  let matched = false
  let carry = ""

  const wanted = () => index >= options.offset
  const append = (segment: string) => {
    if (!wanted()) return
    if (needle && !matched) {
      const window = carry + segment.toLowerCase()
      if (window.includes(needle)) matched = true
      carry = carryLength > 0 ? window.slice(-carryLength) : ""
    }
    const room = options.maxLineLength - kept.length
    if (segment.length > room) {
      kept += segment.slice(0, Math.max(0, room))
      cut = true
    } else kept += segment
  }
  /** Ends the current line; true when the page is full. */
  const finish = (): boolean => {
    if (wanted() && (!needle || matched)) lines.push({ number: index + 1, text: kept, cut })
    index += 1
    kept = ""
    cut = false
    matched = false
    carry = ""
    return lines.length >= options.limit
  }

  const handle = await open(path, "r")
  try {
    const decoder = new StringDecoder("utf8")
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES)
    for (;;) {
      if (signal.aborted) throw abortError()
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
      const text = bytesRead === 0 ? decoder.end() : decoder.write(buffer.subarray(0, bytesRead))
      let start = 0
      for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", start)) {
        append(text.slice(start, at))
        start = at + 1
        // A newline always starts another line, so a full page here means more may follow.
        if (finish()) return { lines, nextOffset: index }
      }
      append(text.slice(start))
      if (bytesRead === 0) {
        finish()
        return { lines, nextOffset: undefined }
      }
    }
  } finally {
    await handle.close()
  }
}
