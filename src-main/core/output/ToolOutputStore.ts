import { mkdirSync } from "node:fs"
import { lstat, open, readdir, unlink, type FileHandle } from "node:fs/promises"
import { join } from "node:path"
import { Clock, Context, Duration, Effect, Layer, Schedule, Schema } from "effect"
import type { ToolOutputFile } from "@contract/events"
import { SessionId, ToolOutputId } from "@contract/ids"
import { Config } from "../config/Config"
import { DataDir } from "../config/DataDir"
import { EventBus } from "../events/EventBus"
import { newId } from "../id/Identifier"
import { Store } from "../store/Store"
import { sql } from "../store/sql"
import type { Tool } from "../tool/Tool"
import { scanLines, writeText, type ScannedLine } from "./files"
import { boundedPreview, countLines, marker } from "./preview"

export * as ToolOutputStore from "./ToolOutputStore"

export const MAX_LINES = 2000
export const MAX_BYTES = 50 * 1024
export const RETENTION = Duration.days(7)
export const SWEEP_INTERVAL = Duration.hours(1)
export const MANAGED_DIRECTORY = "tool-output"
/** Managed files are named `tool_<id>`; the sweep touches nothing else. */
export const FILE_PREFIX = "tool_"
/** Upper bound for one page of {@link Interface.read}. */
export const MAX_PAGE_LINES = 2000
/** Longer lines are cut in a page (the file keeps them whole). */
export const MAX_PAGE_LINE_LENGTH = 10_000

export interface Limits {
  readonly maxLines: number
  readonly maxBytes: number
}

/** Where an output came from; recorded with its managed file when it is spilled. */
export interface Provenance {
  readonly sessionID?: SessionId | undefined
  readonly toolCallID?: string | undefined
  /** The model-facing tool name. */
  readonly tool?: string | undefined
}

export interface Bounded {
  readonly output: Tool.ToolOutput
  /** Absolute paths of the files holding what the preview left out (empty when nothing was cut). */
  readonly outputPaths: ReadonlyArray<string>
}

export interface ReadInput {
  readonly id: ToolOutputId
  /** Lines to skip (0-based index of the first line looked at); default 0. */
  readonly offset?: number
  /** Most lines to return, 1 to {@link MAX_PAGE_LINES}; default 200. */
  readonly limit?: number
  /** Only lines containing this text (case-insensitive). */
  readonly search?: string
}

export interface Page {
  readonly output: ToolOutputFile
  readonly lines: ReadonlyArray<ScannedLine>
  /** The `offset` of the next page, or undefined when the file has no more lines. */
  readonly nextOffset: number | undefined
}

/** Bounding could not keep its promise; the settlement fails rather than return a lossy success. */
export class StorageError extends Schema.TaggedError<StorageError>()("ToolOutputStore.StorageError", {
  operation: Schema.Literals(["encode", "write"]),
  cause: Schema.Defect(),
}) {
  override get message() {
    return this.operation === "encode"
      ? "The structured tool output could not be encoded as JSON to measure it"
      : "The full tool output could not be saved"
  }
}

export class NotFoundError extends Schema.TaggedError<NotFoundError>()("ToolOutputStore.NotFoundError", {
  id: Schema.String,
}) {
  override get message() {
    return `Tool output not found: ${this.id}`
  }
}

/** A managed file exists but could not be read or removed. */
export class AccessError extends Schema.TaggedError<AccessError>()("ToolOutputStore.AccessError", {
  id: Schema.String,
  operation: Schema.Literals(["read", "delete"]),
  cause: Schema.Defect(),
}) {
  override get message() {
    return `Tool output ${this.id} could not be ${this.operation === "read" ? "read" : "deleted"}`
  }
}

export interface Interface {
  /** Absolute path of `<data dir>/tool-output`. */
  readonly directory: string
  /** `tool_output.max_lines` / `max_bytes` from config, else 2000 lines and 51 200 bytes. */
  readonly limits: () => Effect.Effect<Limits>
  /**
   * The one place tool output is truncated. Measures the text content (the pretty JSON of the
   * structured output when there is no content); over either limit, saves the full text to a new
   * managed file and replaces the text with a head/tail preview naming it. Media parts pass
   * through untouched after the preview; `structured` is never changed.
   */
  readonly bound: (output: Tool.ToolOutput, provenance?: Provenance) => Effect.Effect<Bounded, StorageError>
  /**
   * Deletes `tool_*` files older than the retention period and marks their rows deleted. Never
   * fails: every problem is logged and the sweep moves on.
   */
  readonly cleanup: () => Effect.Effect<void>
  /** Managed outputs still on disk, newest first, optionally for one session. */
  readonly list: (input?: {
    readonly sessionID?: SessionId
    readonly limit?: number
  }) => Effect.Effect<ReadonlyArray<ToolOutputFile>>
  /** The same, synchronously, for snapshots (see EventBus's consistency rule). */
  readonly listUnsafe: (input?: {
    readonly sessionID?: SessionId
    readonly limit?: number
  }) => ReadonlyArray<ToolOutputFile>
  /** A managed output that is still on disk (deleted and expired ones are not found). */
  readonly get: (id: ToolOutputId) => Effect.Effect<ToolOutputFile, NotFoundError>
  /** One page of a managed file's lines, streamed from disk (a large file is never loaded whole). */
  readonly read: (input: ReadInput) => Effect.Effect<Page, NotFoundError | AccessError>
  /** Removes a managed file now and marks its row deleted. */
  readonly delete: (id: ToolOutputId) => Effect.Effect<void, NotFoundError | AccessError>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/output/ToolOutputStore") {}

const Row = Schema.Struct({
  id: ToolOutputId,
  path: Schema.String,
  bytes: Schema.Int,
  lines: Schema.Int,
  session_id: Schema.NullOr(SessionId),
  tool_call_id: Schema.NullOr(Schema.String),
  tool_name: Schema.NullOr(Schema.String),
  created_at: Schema.Number,
  expires_at: Schema.Number,
})
const columns = sql`id, path, bytes, lines, session_id, tool_call_id, tool_name, created_at, expires_at`
const toFile = (row: typeof Row.Type): ToolOutputFile => ({
  id: row.id,
  path: row.path,
  bytes: row.bytes,
  lines: row.lines,
  sessionId: row.session_id,
  toolCallId: row.tool_call_id,
  tool: row.tool_name,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
})

const isMissing = (cause: unknown) =>
  typeof cause === "object" && cause !== null && (cause as { code?: unknown }).code === "ENOENT"

/** Pretty JSON of a structured output, the way it is measured and saved when there is no content. */
function encodeStructured(structured: unknown): string {
  const json = JSON.stringify(structured, null, 2) as string | undefined
  return json === undefined ? String(structured) : json
}

export const make = Effect.gen(function* () {
  const dataDir = yield* DataDir.Service
  const config = yield* Config.Service
  const store = yield* Store.Service
  const bus = yield* EventBus.Service
  const directory = join(dataDir.path, MANAGED_DIRECTORY)
  const retention = Duration.toMillis(RETENTION)

  const limits = (): Limits => ({
    maxLines: config.config.tool_output?.max_lines ?? MAX_LINES,
    maxBytes: config.config.tool_output?.max_bytes ?? MAX_BYTES,
  })

  const writeFailure = (cause: unknown) => new StorageError({ operation: "write", cause })

  /** Creates a new file exclusively and streams `text` into it; a failed or interrupted write leaves no file. */
  const writeNew = (path: string, text: string) =>
    Effect.acquireUseRelease(
      Effect.tryPromise({ try: () => open(path, "wx"), catch: writeFailure }),
      (handle: FileHandle) =>
        Effect.tryPromise({
          try: async (signal) => {
            await writeText(handle, text, signal)
            await handle.close()
          },
          catch: writeFailure,
        }),
      (handle, exit) =>
        Effect.promise(async () => {
          // close() waits for a write still in flight after an interruption. After a successful
          // close it only rejects, which is fine to ignore.
          await handle.close().catch(() => undefined)
          if (exit._tag === "Failure") await unlink(path).catch(() => undefined)
        }),
    )

  const spill = Effect.fnUntraced(function* (text: string, bytes: number, lines: number, provenance: Provenance) {
    const id = newId.toolOutput()
    const path = join(directory, id)
    yield* Effect.try({ try: () => mkdirSync(directory, { recursive: true }), catch: writeFailure })
    yield* writeNew(path, text)
    const createdAt = yield* Clock.currentTimeMillis
    const file: ToolOutputFile = {
      id,
      path,
      bytes,
      lines,
      sessionId: provenance.sessionID ?? null,
      toolCallId: provenance.toolCallID ?? null,
      tool: provenance.tool ?? null,
      createdAt,
      expiresAt: createdAt + retention,
    }
    yield* Effect.try({
      try: () => {
        store.run(
          sql`INSERT INTO tool_output (${columns}) VALUES (${file.id}, ${file.path}, ${file.bytes}, ${file.lines}, ${file.sessionId}, ${file.toolCallId}, ${file.tool}, ${file.createdAt}, ${file.expiresAt})`,
        )
        bus.publishUnsafe({ _tag: "tool_output.created", output: file })
      },
      catch: writeFailure,
    }).pipe(Effect.tapError(() => Effect.promise(() => unlink(path).catch(() => undefined))))
    return file
  })

  const bound = Effect.fn("ToolOutputStore.bound")(function* (output: Tool.ToolOutput, provenance: Provenance = {}) {
    const { maxLines, maxBytes } = limits()
    const text =
      output.content.length === 0
        ? yield* Effect.try({
            try: () => encodeStructured(output.structured),
            catch: (cause) => new StorageError({ operation: "encode", cause }),
          })
        : output.content.map((part) => (part.type === "text" ? part.text : "")).join("")
    const bytes = Buffer.byteLength(text, "utf8")
    const lines = countLines(text)
    if (lines <= maxLines && bytes <= maxBytes) return { output, outputPaths: [] } satisfies Bounded
    const file = yield* spill(text, bytes, lines, provenance)
    const media = output.content.filter((part) => part.type === "file")
    return {
      output: {
        structured: output.structured,
        content: [{ type: "text", text: boundedPreview(text, marker(file.path), maxLines, maxBytes) }, ...media],
      },
      outputPaths: [file.path],
    } satisfies Bounded
  })

  /** Marks a row deleted and announces it, in one synchronous step; false when there was nothing to mark. */
  const markDeleted = (id: string, reason: "expired" | "deleted", at: number): boolean => {
    const result = store.run(sql`UPDATE tool_output SET deleted_at = ${at} WHERE id = ${id} AND deleted_at IS NULL`)
    if (result.changes === 0) return false
    bus.publishUnsafe({ _tag: "tool_output.deleted", id: id as ToolOutputId, reason })
    return true
  }

  const attempt = <A>(what: string, run: () => Promise<A>) =>
    Effect.tryPromise({ try: run, catch: (cause) => cause }).pipe(
      Effect.tapError((cause) => Effect.logWarning(`tool-output sweep: ${what}`, cause)),
      Effect.option,
    )

  const cleanup = Effect.fn("ToolOutputStore.cleanup")(function* () {
    const now = yield* Clock.currentTimeMillis
    const cutoff = now - retention
    const names = yield* Effect.tryPromise(() => readdir(directory)).pipe(
      Effect.catch(() => Effect.succeed([] as ReadonlyArray<string>)),
    )
    for (const name of names) {
      if (!name.startsWith(FILE_PREFIX)) continue
      const path = join(directory, name)
      const info = yield* attempt(`cannot stat ${path}`, () => lstat(path))
      if (info._tag === "None" || info.value.isDirectory() || info.value.mtimeMs >= cutoff) continue
      const removed = yield* attempt(`cannot delete ${path}`, () => unlink(path))
      if (removed._tag === "None") continue
      yield* Effect.try(() => markDeleted(name, "expired", now)).pipe(
        Effect.catch((cause) => Effect.logWarning(`tool-output sweep: cannot record ${name} as deleted`, cause)),
      )
    }
    // Rows whose time is up but whose file is already gone (removed by hand, or on another disk).
    const stale = yield* Effect.try(() =>
      store.all(
        Schema.Struct({ id: Schema.String, path: Schema.String }),
        sql`SELECT id, path FROM tool_output WHERE deleted_at IS NULL AND expires_at <= ${now}`,
      ),
    ).pipe(Effect.catch(() => Effect.succeed([])))
    for (const row of stale) {
      const present = yield* Effect.tryPromise({ try: () => lstat(row.path), catch: (cause) => cause }).pipe(
        Effect.as(true),
        Effect.catch((cause) => Effect.succeed(!isMissing(cause))),
      )
      if (present) continue
      yield* Effect.try(() => markDeleted(row.id, "expired", now)).pipe(
        Effect.catch((cause) => Effect.logWarning(`tool-output sweep: cannot record ${row.id} as deleted`, cause)),
      )
    }
  })

  const listUnsafe = (input: { readonly sessionID?: SessionId; readonly limit?: number } = {}) => {
    const limit = Math.max(1, Math.min(input.limit ?? 1000, 10_000))
    const where = input.sessionID
      ? sql`deleted_at IS NULL AND session_id = ${input.sessionID}`
      : sql`deleted_at IS NULL`
    return store
      .all(Row, sql`SELECT ${columns} FROM tool_output WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${limit}`)
      .map(toFile)
  }

  const get = (id: ToolOutputId) =>
    Effect.suspend(() => {
      const row = store.get(Row, sql`SELECT ${columns} FROM tool_output WHERE id = ${id} AND deleted_at IS NULL`)
      return row ? Effect.succeed(toFile(row)) : Effect.fail(new NotFoundError({ id }))
    })

  const read = Effect.fn("ToolOutputStore.read")(function* (input: ReadInput) {
    const output = yield* get(input.id)
    const offset = Math.max(0, Math.floor(input.offset ?? 0))
    const limit = Math.max(1, Math.min(Math.floor(input.limit ?? 200), MAX_PAGE_LINES))
    const page = yield* Effect.tryPromise({
      try: (signal) =>
        scanLines(
          output.path,
          { offset, limit, search: input.search || undefined, maxLineLength: MAX_PAGE_LINE_LENGTH },
          signal,
        ),
      catch: (cause) =>
        isMissing(cause)
          ? new NotFoundError({ id: input.id })
          : new AccessError({ id: input.id, operation: "read", cause }),
    })
    return { output, lines: page.lines, nextOffset: page.nextOffset } satisfies Page
  })

  const remove = Effect.fn("ToolOutputStore.delete")(function* (id: ToolOutputId) {
    const output = yield* get(id)
    // A file already gone (removed by hand) still ends as a deleted row.
    yield* Effect.tryPromise({ try: () => unlink(output.path), catch: (cause) => cause }).pipe(
      Effect.catch((cause) =>
        isMissing(cause) ? Effect.void : Effect.fail(new AccessError({ id, operation: "delete", cause })),
      ),
    )
    const now = yield* Clock.currentTimeMillis
    yield* Effect.sync(() => markDeleted(id, "deleted", now))
  })

  return Service.of({
    directory,
    limits: () => Effect.sync(limits),
    bound,
    cleanup,
    list: (input) => Effect.sync(() => listUnsafe(input)),
    listUnsafe,
    get,
    read,
    delete: remove,
  })
})

export const layer = Layer.effect(Service, make)

/**
 * The retention sweep: runs once at start and then every hour, in one fiber owned by the layer's
 * scope. Provide it once per process (not per Location).
 */
export const layerRetention = Layer.effectDiscard(
  Effect.gen(function* () {
    const outputs = yield* Service
    yield* Effect.forkScoped(outputs.cleanup().pipe(Effect.repeat(Schedule.spaced(SWEEP_INTERVAL))))
  }),
)

/** The store and its retention sweep, as the app runs them. */
export const layerWithRetention = Layer.merge(layer, layerRetention.pipe(Layer.provide(layer)))
