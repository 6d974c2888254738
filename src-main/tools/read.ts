import { open, readdir, realpath, stat, type FileHandle } from "node:fs/promises"
import { basename, dirname, sep } from "node:path"
import { pathToFileURL } from "node:url"
import { Effect, Schema } from "effect"
import { Config } from "@core/config/Config"
import { LocationMutation } from "@core/location/LocationMutation"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Tool } from "@core/tool/Tool"
import { openDirectory, READ_FLAGS } from "./support/anchored"
import { FileMutation } from "./support/FileMutation"
import { Image } from "./support/image"
import { assertAction, assertExternal } from "./support/permission"
import {
  imageMime,
  isBinary,
  LinePager,
  MAX_READ_BYTES,
  MAX_READ_LINES,
  mimeType,
  SAMPLE_BYTES,
  strictDecoder,
} from "./support/text"

export * as ReadTool from "./read"

export const name = "read"

/** Images larger than this are refused before anything is decoded. */
export const MAX_MEDIA_INGEST_BYTES = 20 * 1024 * 1024
export const DIRECTORY_MIME = "application/x-directory"
const CHUNK_BYTES = 64 * 1024
type Decoder = ReturnType<typeof strictDecoder>

export class BinaryFileError extends Schema.TaggedError<BinaryFileError>()("ReadTool.BinaryFileError", {
  resource: Schema.String,
}) {
  override get message() {
    return `Cannot read binary file: ${this.resource}`
  }
}

export class MediaIngestLimitError extends Schema.TaggedError<MediaIngestLimitError>()(
  "ReadTool.MediaIngestLimitError",
  { resource: Schema.String, maximumBytes: Schema.Number },
) {
  override get message() {
    return `Media exceeds ${this.maximumBytes} byte ingestion limit: ${this.resource}`
  }
}

export class MalformedUtf8Error extends Schema.TaggedError<MalformedUtf8Error>()("ReadTool.MalformedUtf8Error", {
  resource: Schema.String,
}) {
  override get message() {
    return `File is not valid UTF-8: ${this.resource}`
  }
}

export class OffsetOutOfRangeError extends Schema.TaggedError<OffsetOutOfRangeError>()(
  "ReadTool.OffsetOutOfRangeError",
  { offset: Schema.Number },
) {
  override get message() {
    return `Offset ${this.offset} is out of range`
  }
}

export class PathKindError extends Schema.TaggedError<PathKindError>()("ReadTool.PathKindError", {
  resource: Schema.String,
  expected: Schema.Literals(["a file", "a file or directory"]),
}) {
  override get message() {
    return `Path is not ${this.expected}: ${this.resource}`
  }
}

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

export const Input = Schema.Struct({
  path: Schema.String.annotate({
    description:
      "File or directory to read. Relative paths resolve within the current location; absolute paths outside it need external_directory approval.",
  }),
  offset: Schema.optional(
    PositiveInt.annotate({ description: "The 1-based directory entry or text line offset to start reading from" }),
  ),
  limit: Schema.optional(
    PositiveInt.check(Schema.isLessThanOrEqualTo(MAX_READ_LINES)).annotate({
      description: "The maximum number of directory entries or text lines to read (at most 2000)",
    }),
  ),
})
export type Input = typeof Input.Type

/** A whole file: UTF-8 text, or a base64 image. */
export const Content = Schema.Struct({
  uri: Schema.String,
  name: Schema.String,
  content: Schema.String,
  encoding: Schema.Literals(["utf8", "base64"]),
  mime: Schema.String,
})
export type Content = typeof Content.Type

/** Part of a text file; `next` is the first line not returned. */
export const TextPage = Schema.Struct({
  type: Schema.Literal("text-page"),
  content: Schema.String,
  mime: Schema.String,
  offset: PositiveInt,
  truncated: Schema.Boolean,
  next: Schema.optional(PositiveInt),
})
export type TextPage = typeof TextPage.Type

export const Entry = Schema.Struct({
  /** The entry's name; a directory's ends with the platform separator. */
  path: Schema.String,
  type: Schema.Literals(["file", "directory"]),
  mime: Schema.String,
})

/** Part of a directory's direct children; `next` is the first entry not returned. */
export const ListPage = Schema.Struct({
  entries: Schema.Array(Entry),
  truncated: Schema.Boolean,
  next: Schema.optional(PositiveInt),
})
export type ListPage = typeof ListPage.Type

export const Output = Schema.Union([Content, TextPage, ListPage])
export type Output = typeof Output.Type

const SUPPORTED_IMAGE_MIMES: ReadonlySet<string> = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"])

/**
 * What the model reads. Images per E.1. Text and directory pages get a text projection (a project
 * decision; the seed target has none): measured as JSON, a full 50 KiB page would always exceed the
 * output bound and be spilled, so large files could never be read page by page.
 */
export function modelOutput(input: Input, output: typeof Output.Encoded): ReadonlyArray<Tool.Content> {
  if ("encoding" in output) {
    if (output.encoding === "utf8") return [{ type: "text", text: output.content }]
    if (!SUPPORTED_IMAGE_MIMES.has(output.mime)) return []
    return [
      { type: "text", text: "Image read successfully" },
      { type: "file", data: output.content, mime: output.mime, name: input.path },
    ]
  }
  if ("entries" in output) {
    const listing = output.entries.map((entry) => entry.path).join("\n") || "(empty directory)"
    return [{ type: "text", text: listing + continuation("entries", input.offset ?? 1, output.next) }]
  }
  return [{ type: "text", text: output.content + continuation("lines", output.offset, output.next) }]
}

const continuation = (unit: "lines" | "entries", offset: number, next: number | undefined) =>
  next === undefined
    ? ""
    : `\n\n(Showing ${unit} ${offset}-${next - 1}. There are more ${unit}; read again with offset=${next} to continue.)`

interface Page {
  readonly offset?: number | undefined
  readonly limit?: number | undefined
}

const ioError = (path: string) => (cause: unknown) => {
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined
  return new FileMutation.FileSystemError({ path, operation: "read", cause, ...(code ? { code } : {}) })
}

const io = <A>(path: string, run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: ioError(path) })

/** A file or a directory, by `stat` (never the content). */
const inspect = (canonical: string, resource: string) =>
  Effect.gen(function* () {
    const info = yield* io(canonical, () => stat(canonical))
    if (info.isFile()) return "file" as const
    if (info.isDirectory()) return "directory" as const
    return yield* new PathKindError({ resource, expected: "a file or directory" })
  })

/** Reads up to `size` bytes at the current position; empty at the end of the file. */
const readChunk = (handle: FileHandle, path: string, size: number) =>
  io(path, async () => {
    const buffer = Buffer.alloc(size)
    const { bytesRead } = await handle.read(buffer, 0, size, null)
    return buffer.subarray(0, bytesRead)
  })

/** Strict UTF-8 decoding of one chunk (`bytes` undefined flushes the decoder). */
const decode = (decoder: Decoder, resource: string, bytes?: Uint8Array) =>
  Effect.try({
    try: () => (bytes === undefined ? decoder.decode() : decoder.decode(bytes, { stream: true })),
    catch: () => new MalformedUtf8Error({ resource }),
  })

/** A chunk after the sniffed sample: a NUL byte still means binary. */
const decodeLater = (decoder: Decoder, resource: string, bytes: Uint8Array) =>
  bytes.includes(0) ? Effect.fail(new BinaryFileError({ resource })) : decode(decoder, resource, bytes)

const openFile = (canonical: string) =>
  Effect.acquireRelease(
    io(canonical, async () => {
      // Through the verified parent and never through a link: the target cannot have been swapped
      // for a link to the outside since it was resolved.
      const anchor = openDirectory(dirname(canonical))
      try {
        return await open(anchor.child(basename(canonical)), READ_FLAGS)
      } finally {
        anchor.close()
      }
    }),
    (handle) => Effect.promise(() => handle.close()),
  )

/** SPEC-CORE E.1 file read: image, binary refusal, whole text, or one page of lines. */
const readFile = (canonical: string, resource: string, page: Page) =>
  Effect.scoped(
    Effect.gen(function* () {
      const handle = yield* openFile(canonical)
      const info = yield* io(canonical, () => handle.stat())
      if (!info.isFile()) return yield* new PathKindError({ resource, expected: "a file" })
      const uri = pathToFileURL(canonical).href
      const name = basename(canonical)
      const sample = yield* readChunk(handle, canonical, Math.min(SAMPLE_BYTES, info.size || 4 * 1024))
      const image = imageMime(sample)
      if (image) {
        const limited = new MediaIngestLimitError({ resource, maximumBytes: MAX_MEDIA_INGEST_BYTES })
        if (info.size > MAX_MEDIA_INGEST_BYTES) return yield* limited
        const chunks = [sample]
        let total = sample.length
        while (total <= MAX_MEDIA_INGEST_BYTES) {
          const chunk = yield* readChunk(handle, canonical, Math.min(CHUNK_BYTES, MAX_MEDIA_INGEST_BYTES + 1 - total))
          if (chunk.length === 0) break
          chunks.push(chunk)
          total += chunk.length
        }
        if (total > MAX_MEDIA_INGEST_BYTES) return yield* limited
        const content = Buffer.concat(chunks, total).toString("base64")
        return { uri, name, content, encoding: "base64", mime: image } satisfies Content
      }
      if (isBinary(resource, sample)) return yield* new BinaryFileError({ resource })
      const mime = mimeType(canonical, "text/plain")
      const decoder = strictDecoder()
      if (info.size <= MAX_READ_BYTES && page.offset === undefined && page.limit === undefined) {
        const parts = [yield* decode(decoder, resource, sample)]
        while (true) {
          const chunk = yield* readChunk(handle, canonical, CHUNK_BYTES)
          if (chunk.length === 0) break
          parts.push(yield* decodeLater(decoder, resource, chunk))
        }
        parts.push(yield* decode(decoder, resource))
        return { uri, name, content: parts.join(""), encoding: "utf8", mime } satisfies Content
      }
      const offset = page.offset ?? 1
      const pager = new LinePager(offset, Math.min(page.limit ?? MAX_READ_LINES, MAX_READ_LINES))
      let wanting = pager.push(yield* decode(decoder, resource, sample))
      while (wanting) {
        const chunk = yield* readChunk(handle, canonical, CHUNK_BYTES)
        if (chunk.length === 0) break
        wanting = pager.push(yield* decodeLater(decoder, resource, chunk))
      }
      if (wanting) {
        pager.push(yield* decode(decoder, resource))
        pager.end()
      }
      if (!pager.found && offset !== 1) return yield* new OffsetOutOfRangeError({ offset })
      return { type: "text-page", mime, offset, ...pager.result() } satisfies TextPage
    }),
  )

const contains = LocationMutation.contains

/** SPEC-CORE E.1 directory page: direct children that stay inside, directories first. */
const listDirectory = (canonical: string, page: Page) =>
  io(canonical, async () => {
    const anchor = openDirectory(canonical)
    const entries: Array<typeof Entry.Type> = []
    try {
      const names = await readdir(anchor.self)
      for (let start = 0; start < names.length; start += 32) {
        const batch = await Promise.all(
          names.slice(start, start + 32).map(async (entry) => {
            const real = await realpath(anchor.child(entry)).catch(() => undefined)
            if (real === undefined || !contains(canonical, real)) return undefined
            const info = await stat(real).catch(() => undefined)
            if (info?.isDirectory()) return { path: entry + sep, type: "directory" as const, mime: DIRECTORY_MIME }
            if (info?.isFile()) return { path: entry, type: "file" as const, mime: mimeType(real) }
            return undefined
          }),
        )
        for (const entry of batch) if (entry) entries.push(entry)
      }
    } finally {
      anchor.close()
    }
    entries.sort((a, b) => (a.type === b.type ? a.path.localeCompare(b.path) : a.type === "directory" ? -1 : 1))
    const offset = page.offset ?? 1
    const limit = Math.min(page.limit ?? MAX_READ_LINES, MAX_READ_LINES)
    const selected = entries.slice(offset - 1, offset - 1 + limit)
    const truncated = offset - 1 + selected.length < entries.length
    return truncated
      ? ({ entries: selected, truncated, next: offset + selected.length } satisfies ListPage)
      : ({ entries: selected, truncated } satisfies ListPage)
  })

/** The `read` tool (SPEC-CORE E.1), built with the services of one Location. */
export const make = Effect.gen(function* () {
  const permission = yield* PermissionV2.Service
  const mutation = yield* LocationMutation.Service
  const config = yield* Config.Service
  const limits = Image.limitsFrom(config.config.attachments?.image)
  const loadResizer = yield* Effect.cached(Image.loadResizer)

  const normalize = (resource: string, content: Content) =>
    loadResizer.pipe(
      Effect.flatMap((sharp) => Image.normalize(sharp, resource, content, limits)),
      Effect.map((image): Content => ({ ...content, content: image.content, mime: image.mime })),
      // Without a resizer the original goes out; the output boundary still limits media.
      Effect.catchTag("Image.ResizerUnavailableError", () => Effect.succeed(content)),
    )

  return Tool.make({
    description:
      "Read a text file or a supported image (png, jpeg, gif, webp), page through a large UTF-8 text file by line offset, or list a directory page. Relative paths resolve from the current location; absolute paths inside it are accepted, while external absolute paths require external_directory approval.",
    input: Input,
    output: Output,
    toModelOutput: ({ input, output }) => modelOutput(input, output),
    execute: (input, context) =>
      Effect.gen(function* () {
        const target = yield* mutation.resolve({ path: input.path, kind: "directory" })
        yield* assertExternal(permission, context, target)
        const kind = yield* inspect(target.canonical, target.resource)
        yield* assertAction(permission, context, { action: name, resources: [target.resource], save: ["*"] })
        const page = { offset: input.offset, limit: input.limit }
        if (kind === "directory") return yield* listDirectory(target.canonical, page)
        const content = yield* readFile(target.canonical, target.resource, page)
        if ("encoding" in content && content.encoding === "base64") return yield* normalize(target.resource, content)
        return content
      }).pipe(
        Effect.mapError((error) => {
          switch (error._tag) {
            // The person's feedback is for the model: it must read it, not a generic failure.
            case "PermissionV2.CorrectedError":
            case "ReadTool.BinaryFileError":
            case "ReadTool.MediaIngestLimitError":
            case "Image.DecodeError":
            case "Image.SizeError":
              return new Tool.ToolFailure({ message: error.message, error })
            default:
              return new Tool.ToolFailure({ message: `Unable to read ${input.path}`, error })
          }
        }),
      ),
  })
})
