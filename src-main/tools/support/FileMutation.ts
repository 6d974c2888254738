import { randomBytes } from "node:crypto"
import { open, rename, unlink, type FileHandle } from "node:fs/promises"
import { Context, Effect, Layer, Schema, Semaphore } from "effect"
import { CREATE_FLAGS, READ_FLAGS, withParent, type Anchor } from "./anchored"
import { hasUtf8Bom, joinBom, splitBom } from "./text"

export * as FileMutation from "./FileMutation"

/** A file the caller resolved (LocationMutation) and got approval for. */
export interface Target {
  /** Canonical absolute path: every directory on it is real, no symbolic links. */
  readonly canonical: string
  readonly resource: string
}

export interface WriteResult {
  readonly operation: "write"
  readonly target: string
  readonly resource: string
  readonly existed: boolean
}

export interface RemoveResult {
  readonly operation: "remove"
  readonly target: string
  readonly resource: string
}

/** The file's bytes are no longer the ones the change was computed from. */
export class StaleContentError extends Schema.TaggedError<StaleContentError>()("FileMutation.StaleContentError", {
  path: Schema.String,
}) {
  override get message() {
    return `File changed since it was read: ${this.path}`
  }
}

/** An exclusive create found something already at the path (a file, a directory or a link). */
export class TargetExistsError extends Schema.TaggedError<TargetExistsError>()("FileMutation.TargetExistsError", {
  path: Schema.String,
}) {
  override get message() {
    return `File already exists: ${this.path}`
  }
}

/**
 * The filesystem refused: missing file, not a regular file, a link where a file was expected, a
 * directory that changed since resolution, permissions, IO.
 */
export class FileSystemError extends Schema.TaggedError<FileSystemError>()("FileMutation.FileSystemError", {
  path: Schema.String,
  operation: Schema.Literals(["read", "write", "create", "remove"]),
  code: Schema.optional(Schema.String),
  cause: Schema.Defect(),
}) {
  override get message() {
    return `Cannot ${this.operation} ${this.path}${this.code ? ` (${this.code})` : ""}`
  }
}

/**
 * Every change a file tool makes. Each change holds an in-process lock for its canonical path and
 * runs uninterruptibly once it holds it. Files are reached through their verified parent directory
 * and never through a symbolic link (see `anchored.ts`); replacing content writes a temporary file
 * next to the target and renames it over, so a reader never sees half a file and a hard link to
 * the target is detached rather than written through.
 */
export interface Interface {
  /** The bytes of an existing regular file (not through a link). */
  readonly read: (target: Target) => Effect.Effect<Uint8Array, FileSystemError>
  /**
   * Writes text, creating parent directories: leading BOMs are stripped from `content` and exactly
   * one is written when the existing file or `content` had one.
   */
  readonly writeTextPreservingBom: (input: {
    readonly target: Target
    readonly content: string
  }) => Effect.Effect<WriteResult, FileSystemError>
  /** Replaces an existing file only if its bytes still equal `expected`. */
  readonly writeIfUnchanged: (input: {
    readonly target: Target
    readonly expected: Uint8Array
    readonly content: string | Uint8Array
  }) => Effect.Effect<WriteResult, StaleContentError | FileSystemError>
  /** Creates a new file (and missing parents); fails if anything is already at the path. */
  readonly create: (input: {
    readonly target: Target
    readonly content: string | Uint8Array
  }) => Effect.Effect<WriteResult, TargetExistsError | FileSystemError>
  /** Removes an existing file only if its bytes still equal `expected`. */
  readonly removeIfUnchanged: (input: {
    readonly target: Target
    readonly expected: Uint8Array
  }) => Effect.Effect<RemoveResult, StaleContentError | FileSystemError>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/tools/support/FileMutation") {}

class NotRegularFile extends Error {
  readonly code = "ENOTREG"
}
class Stale extends Error {}
class Exists extends Error {}

const codeOf = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined

interface Existing {
  readonly bytes: Uint8Array
  readonly mode: number
}

async function readRegular(anchor: Anchor, name: string, limit?: number): Promise<Existing> {
  const handle = await open(anchor.child(name), READ_FLAGS)
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) throw new NotRegularFile(`Not a regular file: ${name}`)
    if (limit === undefined) return { bytes: await handle.readFile(), mode: stat.mode }
    const buffer = Buffer.alloc(limit)
    const { bytesRead } = await handle.read(buffer, 0, limit, 0)
    return { bytes: buffer.subarray(0, bytesRead), mode: stat.mode }
  } finally {
    await handle.close()
  }
}

async function readIfExists(anchor: Anchor, name: string, limit?: number): Promise<Existing | undefined> {
  try {
    return await readRegular(anchor, name, limit)
  } catch (error) {
    if (codeOf(error) === "ENOENT") return undefined
    throw error
  }
}

async function writeAll(handle: FileHandle, content: string | Uint8Array) {
  await handle.writeFile(content)
  await handle.sync()
}

/** Writes a temporary sibling and renames it over `name`, keeping the old file's permission bits. */
async function replace(anchor: Anchor, name: string, content: string | Uint8Array, mode: number | undefined) {
  const temporary = `.gatehouse-${randomBytes(6).toString("hex")}.tmp`
  const handle = await open(anchor.child(temporary), CREATE_FLAGS, 0o666)
  try {
    if (mode !== undefined) await handle.chmod(mode & 0o7777)
    await writeAll(handle, content)
  } catch (error) {
    await handle.close()
    await unlink(anchor.child(temporary)).catch(() => undefined)
    throw error
  }
  await handle.close()
  try {
    await rename(anchor.child(temporary), anchor.child(name))
  } catch (error) {
    await unlink(anchor.child(temporary)).catch(() => undefined)
    throw error
  }
}

const sameBytes = (left: Uint8Array, right: Uint8Array) => Buffer.compare(left, right) === 0

export const make = Effect.sync(() => {
  const locks = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()

  /** Holds the lock for `path` (waiting is interruptible) and runs `effect` uninterruptibly. */
  const locked =
    (path: string) =>
    <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          let entry = locks.get(path)
          if (!entry) locks.set(path, (entry = { semaphore: Semaphore.makeUnsafe(1), users: 0 }))
          entry.users++
          return entry
        }),
        (entry) => entry.semaphore.withPermit(Effect.uninterruptible(effect)),
        (entry) =>
          Effect.sync(() => {
            if (--entry.users === 0) locks.delete(path)
          }),
      )

  /** Runs filesystem work; `known` turns a failure it recognizes into its typed error. */
  const attempt = <A, E = never>(
    path: string,
    operation: FileSystemError["operation"],
    run: () => Promise<A>,
    known: (cause: unknown) => E | undefined = () => undefined,
  ): Effect.Effect<A, FileSystemError | E> =>
    Effect.tryPromise({
      try: run,
      catch: (cause) => {
        const typed = known(cause)
        if (typed !== undefined) return typed
        const code = codeOf(cause)
        return new FileSystemError({ path, operation, cause, ...(code ? { code } : {}) })
      },
    })
  const stale = (path: string) => (cause: unknown) =>
    cause instanceof Stale ? new StaleContentError({ path }) : undefined
  const exists = (path: string) => (cause: unknown) =>
    cause instanceof Exists ? new TargetExistsError({ path }) : undefined

  const read = Effect.fn("FileMutation.read")((target: Target) =>
    attempt(target.canonical, "read", () =>
      withParent(target.canonical, {}, async (anchor, name) => (await readRegular(anchor, name)).bytes),
    ),
  )

  const writeTextPreservingBom = Effect.fn("FileMutation.writeTextPreservingBom")(
    (input: { readonly target: Target; readonly content: string }) =>
      locked(input.target.canonical)(
        attempt(input.target.canonical, "write", () =>
          withParent(input.target.canonical, { create: true }, async (anchor, name) => {
            const existing = await readIfExists(anchor, name, 3)
            const next = splitBom(input.content)
            const bom = next.bom || (existing !== undefined && hasUtf8Bom(existing.bytes))
            await replace(anchor, name, joinBom(next.text, bom), existing?.mode)
            return existing !== undefined
          }),
        ),
      ).pipe(
        Effect.map((existed): WriteResult => ({
          operation: "write",
          target: input.target.canonical,
          resource: input.target.resource,
          existed,
        })),
      ),
  )

  const writeIfUnchanged = Effect.fn("FileMutation.writeIfUnchanged")(
    (input: { readonly target: Target; readonly expected: Uint8Array; readonly content: string | Uint8Array }) =>
      locked(input.target.canonical)(
        attempt(
          input.target.canonical,
          "write",
          () =>
            withParent(input.target.canonical, {}, async (anchor, name) => {
              const current = await readIfExists(anchor, name)
              if (current === undefined || !sameBytes(current.bytes, input.expected)) throw new Stale()
              await replace(anchor, name, input.content, current.mode)
            }),
          stale(input.target.canonical),
        ),
      ).pipe(
        Effect.as<WriteResult>({
          operation: "write",
          target: input.target.canonical,
          resource: input.target.resource,
          existed: true,
        }),
      ),
  )

  const create = Effect.fn("FileMutation.create")(
    (input: { readonly target: Target; readonly content: string | Uint8Array }) =>
      locked(input.target.canonical)(
        attempt(
          input.target.canonical,
          "create",
          () =>
            withParent(input.target.canonical, { create: true }, async (anchor, name) => {
              let handle: FileHandle
              try {
                handle = await open(anchor.child(name), CREATE_FLAGS, 0o666)
              } catch (error) {
                // ELOOP: a symbolic link sits at the name (O_EXCL never follows one).
                if (codeOf(error) === "EEXIST" || codeOf(error) === "ELOOP") throw new Exists()
                throw error
              }
              try {
                await writeAll(handle, input.content)
              } catch (error) {
                await handle.close()
                await unlink(anchor.child(name)).catch(() => undefined)
                throw error
              }
              await handle.close()
            }),
          exists(input.target.canonical),
        ),
      ).pipe(
        Effect.as<WriteResult>({
          operation: "write",
          target: input.target.canonical,
          resource: input.target.resource,
          existed: false,
        }),
      ),
  )

  const removeIfUnchanged = Effect.fn("FileMutation.removeIfUnchanged")(
    (input: { readonly target: Target; readonly expected: Uint8Array }) =>
      locked(input.target.canonical)(
        attempt(
          input.target.canonical,
          "remove",
          () =>
            withParent(input.target.canonical, {}, async (anchor, name) => {
              const current = await readIfExists(anchor, name)
              if (current === undefined || !sameBytes(current.bytes, input.expected)) throw new Stale()
              await unlink(anchor.child(name))
            }),
          stale(input.target.canonical),
        ),
      ).pipe(
        Effect.as<RemoveResult>({
          operation: "remove",
          target: input.target.canonical,
          resource: input.target.resource,
        }),
      ),
  )

  return Service.of({ read, writeTextPreservingBom, writeIfUnchanged, create, removeIfUnchanged })
})

/** One per process: the locks must be shared by every Location that can reach the same file. */
export const layer = Layer.effect(Service, make)
