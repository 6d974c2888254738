import { extname } from "node:path"

// What `read` decides from bytes alone (SPEC-CORE E.1): image magic, binary sniffing, strict UTF-8,
// and the line pager. Pure: no IO, no Effect.

export const MAX_READ_LINES = 2_000
export const MAX_READ_BYTES = 50 * 1024
/**
 * Bytes of a page kept free for read's continuation note, so a full page plus the note still fits
 * the model-output bound (also 50 KiB) instead of being spilled to a managed file.
 */
export const PAGE_NOTE_RESERVE = 128
export const MAX_LINE_LENGTH = 2_000
export const LINE_TRUNCATED_SUFFIX = `... (line truncated to ${MAX_LINE_LENGTH} chars)`
/** How much of a file is sniffed before deciding image / binary / text. */
export const SAMPLE_BYTES = 64 * 1024

export type ImageMime = "image/png" | "image/jpeg" | "image/gif" | "image/webp"

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>, at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((value, index) => bytes[at + index] === value)

/** The image type announced by the magic bytes, if it is one `read` returns as an image. */
export function imageMime(bytes: Uint8Array): ImageMime | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png"
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg"
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return "image/gif"
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return "image/webp"
  return undefined
}

export const BINARY_EXTENSIONS: ReadonlySet<string> = new Set([
  ".zip",
  ".tar",
  ".gz",
  ".exe",
  ".dll",
  ".so",
  ".class",
  ".jar",
  ".war",
  ".7z",
  ".doc",
  ".docx",
  ".xls",
  ".xlsx",
  ".ppt",
  ".pptx",
  ".odt",
  ".ods",
  ".odp",
  ".bin",
  ".dat",
  ".obj",
  ".o",
  ".a",
  ".lib",
  ".wasm",
  ".pyc",
  ".pyo",
])

/**
 * Binary by name or by sample: a PDF header, a known binary extension, any NUL byte, or more than
 * 30 % control bytes (below 9, or 14–31).
 */
export function isBinary(resource: string, sample: Uint8Array): boolean {
  if (startsWith(sample, [0x25, 0x50, 0x44, 0x46])) return true
  if (BINARY_EXTENSIONS.has(extname(resource).toLowerCase())) return true
  if (sample.length === 0) return false
  let control = 0
  for (const byte of sample) {
    if (byte === 0) return true
    if (byte < 9 || (byte > 13 && byte < 32)) control++
  }
  return control / sample.length > 0.3
}

/** A fatal UTF-8 decoder that also drops a leading BOM. `decode` throws TypeError on bad bytes. */
export const strictDecoder = () => new TextDecoder("utf-8", { fatal: true })

/** Decodes all of `bytes` as strict UTF-8, or `undefined` if they are not valid UTF-8. */
export function decodeStrict(bytes: Uint8Array, options: { readonly ignoreBOM?: boolean } = {}): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: options.ignoreBOM ?? false }).decode(bytes)
  } catch {
    return undefined
  }
}

const UTF8_BOM = [0xef, 0xbb, 0xbf]
export const hasUtf8Bom = (bytes: Uint8Array) => startsWith(bytes, UTF8_BOM)

/** Text without any leading BOM characters, and whether there was one. */
export function splitBom(text: string): { readonly bom: boolean; readonly text: string } {
  const stripped = text.replace(/^\uFEFF+/u, "")
  return { bom: stripped.length !== text.length, text: stripped }
}

/** `text` with exactly one leading BOM when `bom`, none otherwise. */
export const joinBom = (text: string, bom: boolean) => {
  const stripped = splitBom(text).text
  return bom ? `\uFEFF${stripped}` : stripped
}

const TYPES: Readonly<Record<string, string>> = {
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".html": "text/html",
  ".htm": "text/html",
  ".css": "text/css",
  ".csv": "text/csv",
  ".tsv": "text/tab-separated-values",
  ".xml": "application/xml",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".jsonc": "application/json",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".cjs": "text/javascript",
  ".jsx": "text/jsx",
  ".ts": "text/x-typescript",
  ".mts": "text/x-typescript",
  ".cts": "text/x-typescript",
  ".tsx": "text/tsx",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".toml": "application/toml",
  ".sh": "application/x-sh",
  ".py": "text/x-python",
  ".rs": "text/x-rust",
  ".go": "text/x-go",
  ".java": "text/x-java",
  ".c": "text/x-c",
  ".h": "text/x-c",
  ".cpp": "text/x-c++",
  ".hpp": "text/x-c++",
  ".sql": "application/sql",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".wasm": "application/wasm",
}

/**
 * A MIME type from the file name. `fallback` applies to unknown names: `text/plain` for a file
 * already known to be UTF-8 text, `application/octet-stream` when nothing was read.
 */
export function mimeType(path: string, fallback = "application/octet-stream"): string {
  return TYPES[extname(path).toLowerCase()] ?? fallback
}

/** Cuts a line longer than {@link MAX_LINE_LENGTH} code units, never inside a surrogate pair. */
export function cutLine(line: string): string {
  if (line.length <= MAX_LINE_LENGTH) return line
  const high = line.charCodeAt(MAX_LINE_LENGTH - 1)
  const end = high >= 0xd800 && high <= 0xdbff ? MAX_LINE_LENGTH - 1 : MAX_LINE_LENGTH
  return line.slice(0, end) + LINE_TRUNCATED_SUFFIX
}

const utf8Length = (text: string) => Buffer.byteLength(text, "utf8")

/**
 * Collects one page of lines from decoded text pushed in arbitrary chunks. Line `n` is 1-based; a
 * `\r` before `\n` is dropped; a line is cut at 2000 code units (the rest is never kept in memory);
 * the page ends at `limit` lines or when the next line (counted with its joining `\n`) would pass
 * 50 KiB less {@link PAGE_NOTE_RESERVE}, and then `next` is the first line not returned.
 */
export class LinePager {
  private readonly lines: string[] = []
  private bytes = 0
  private line = 1
  private pending = ""
  private overlong = false
  private done = false
  private next: number | undefined = undefined

  constructor(
    readonly offset: number,
    readonly limit: number,
  ) {}

  /** Feeds decoded text; false once the page is complete and more input is not needed. */
  push(text: string): boolean {
    let rest = text
    while (!this.done) {
      const index = rest.indexOf("\n")
      if (index === -1) {
        this.keep(rest)
        return true
      }
      this.keep(rest.slice(0, index))
      rest = rest.slice(index + 1)
      this.complete()
    }
    return false
  }

  /** Ends the input: a last line without a trailing newline still counts. */
  end(): void {
    if (!this.done && (this.pending !== "" || this.overlong)) this.complete()
  }

  /** Whether any requested line existed (false means the offset is beyond the end). */
  get found(): boolean {
    return this.lines.length > 0 || this.next !== undefined
  }

  result(): { readonly content: string; readonly truncated: boolean; readonly next?: number } {
    const content = this.lines.join("\n")
    return this.next === undefined ? { content, truncated: false } : { content, truncated: true, next: this.next }
  }

  private keep(text: string) {
    if (this.overlong || text === "") return
    this.pending += text
    // One code unit more than the cut, so a line of exactly 2000 units is not marked as cut.
    if (this.pending.length > MAX_LINE_LENGTH + 1) {
      this.pending = this.pending.slice(0, MAX_LINE_LENGTH + 1)
      this.overlong = true
    }
  }

  private complete() {
    const raw = this.pending
    const overlong = this.overlong
    this.pending = ""
    this.overlong = false
    const number = this.line++
    if (number < this.offset) return
    // An overlong line holds 2001 units here, so it is always cut (and its `\r`, if any, is gone).
    const text = cutLine(!overlong && raw.endsWith("\r") ? raw.slice(0, -1) : raw)
    const size = utf8Length(text) + (this.lines.length > 0 ? 1 : 0)
    if (this.lines.length >= this.limit || this.bytes + size > MAX_READ_BYTES - PAGE_NOTE_RESERVE) {
      this.next = number
      this.done = true
      return
    }
    this.lines.push(text)
    this.bytes += size
  }
}
