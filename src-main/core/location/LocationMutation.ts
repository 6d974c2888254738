import { lstatSync, readlinkSync, realpathSync, statSync, type Stats } from "node:fs"
import { dirname, isAbsolute, join, parse, relative, resolve as resolvePath, sep } from "node:path"
import { Context, Effect, Layer, Schema } from "effect"
import { Location } from "./Location"

export * as LocationMutation from "./LocationMutation"

// Where a tool's path really points, before anything is asked or touched (SPEC-CORE F). It reads
// the filesystem (lstat, readlink, realpath) and never writes. Tools act on `canonical` afterwards.

export const PathErrorReason = Schema.Literals([
  "relative_escape",
  "location_escape",
  "non_directory_ancestor",
  "invalid_path",
])
export type PathErrorReason = typeof PathErrorReason.Type

/**
 * The path cannot be used. `relative_escape`: a relative path climbs out of the Location (even if it
 * climbs back in). `location_escape`: a path inside the Location resolves outside it through a
 * symbolic link. `non_directory_ancestor`: a parent of a missing path is a file. `invalid_path`
 * (our addition): a NUL byte, a symbolic-link loop, or a path the system refuses to resolve.
 */
export class PathError extends Schema.TaggedError<PathError>()("LocationMutation.PathError", {
  path: Schema.String,
  reason: PathErrorReason,
}) {
  override get message() {
    const path = JSON.stringify(this.path)
    switch (this.reason) {
      case "relative_escape":
        return `Relative path ${path} leaves the location`
      case "location_escape":
        return `Path ${path} resolves outside the location through a symbolic link`
      case "non_directory_ancestor":
        return `Path ${path} has a parent that is not a directory`
      case "invalid_path":
        return `Path ${path} cannot be resolved`
    }
  }
}

export interface Input {
  readonly path: string
  /** `directory` lets an existing directory be its own external boundary; `file` never does. */
  readonly kind?: "file" | "directory"
}

/** The approval an explicit path outside the Location needs before the tool's own action. */
export interface ExternalDirectory {
  readonly action: "external_directory"
  /** The canonical directory being opened up. */
  readonly directory: string
  /** `<directory>/*`, slash-separated. */
  readonly resource: string
  /** The same pattern, saved by an `always` answer. */
  readonly save: string
}

export interface Target {
  /** The real path to act on (symbolic links resolved; missing segments appended). */
  readonly canonical: string
  /** Location-relative with `/` (`.` for the root) inside; the canonical path, with `/`, outside. */
  readonly resource: string
  readonly externalDirectory?: ExternalDirectory
}

export interface Interface {
  /** Resolves a tool's path against the Location. Approves nothing: callers assert afterwards. */
  readonly resolve: (input: Input) => Effect.Effect<Target, PathError>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/location/LocationMutation") {}

const slashes = (path: string) => (sep === "/" ? path : path.split(sep).join("/"))

/** `child` is `parent` or below it. A sibling such as `/root-evil` is not inside `/root`. */
export function contains(parent: string, child: string): boolean {
  const rel = relative(parent, child)
  return rel === "" || !(isAbsolute(rel) || rel === ".." || rel.startsWith(`..${sep}`))
}

const separators = sep === "/" ? /\//u : /[\\/]/u

/** Go's `os.Root` rule: walking the segments of a relative path never goes above its start. */
export function climbsOut(relativePath: string): boolean {
  let depth = 0
  for (const segment of relativePath.split(separators)) {
    if (segment === "" || segment === ".") continue
    depth += segment === ".." ? -1 : 1
    if (depth < 0) return true
  }
  return false
}

/** Hand-followed symbolic links (the dangling ones realpath refuses) before we call it a loop. */
const MAX_LINK_HOPS = 40

type Kind = "file" | "directory" | "other" | "missing"

interface Found {
  readonly canonical: string
  readonly kind: Kind
  /** The canonical directory the target lives in (itself for a directory; see `Input.kind`). */
  readonly directory: string
}

class Unresolvable extends Error {}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined
}

function tryRealpath(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

function tryLstat(path: string): Stats | undefined {
  try {
    return lstatSync(path)
  } catch (error) {
    const code = errorCode(error)
    if (code === "ENOENT" || code === "ENOTDIR") return undefined
    throw new Unresolvable()
  }
}

/**
 * The physical location of an absolute path whose tail may not exist yet. Segment by segment: an
 * existing segment is canonicalized with realpath (links, chains, platform quirks); a symbolic link
 * that realpath cannot resolve (dangling, or a loop) is followed by hand, so a dangling link to the
 * outside is seen as outside; the first missing segment ends the walk and the rest is appended.
 */
function canonicalize(absolute: string, kind: Input["kind"]): Found {
  let hops = 0
  let real = realpathSync(parse(absolute).root)
  const queue = absolute.slice(parse(absolute).root.length).split(separators)
  while (queue.length > 0) {
    const segment = queue.shift()!
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      real = dirname(real)
      continue
    }
    const next = join(real, segment)
    const resolved = tryRealpath(next)
    if (resolved !== undefined) {
      const stat = statSync(resolved)
      const more = queue.some((rest) => rest !== "" && rest !== ".")
      if (stat.isDirectory()) real = resolved
      else if (more) throw new PathError({ path: absolute, reason: "non_directory_ancestor" })
      else return { canonical: resolved, kind: stat.isFile() ? "file" : "other", directory: dirname(resolved) }
      continue
    }
    const link = tryLstat(next)
    if (link?.isSymbolicLink()) {
      if (++hops > MAX_LINK_HOPS) throw new Unresolvable()
      const target = readlinkSync(next)
      if (isAbsolute(target)) real = realpathSync(parse(target).root)
      queue.unshift(...target.slice(isAbsolute(target) ? parse(target).root.length : 0).split(separators))
      continue
    }
    if (link !== undefined) throw new Unresolvable()
    const tail = [segment, ...queue].filter((rest) => rest !== "" && rest !== ".")
    // Only a link's target can put `..` after a missing segment; creating the missing directories
    // would make it climb from them, i.e. lexically, so walk the normalized path once more.
    if (tail.includes("..")) {
      if (++hops > MAX_LINK_HOPS) throw new Unresolvable()
      const normalized = resolvePath(real, ...tail)
      real = realpathSync(parse(normalized).root)
      queue.splice(0, queue.length, ...normalized.slice(parse(normalized).root.length).split(separators))
      continue
    }
    return { canonical: join(real, ...tail), kind: "missing", directory: real }
  }
  return { canonical: real, kind: "directory", directory: kind === "file" ? dirname(real) : real }
}

/**
 * SPEC-CORE F.1–F.7 against a Location directory (canonical). Returns the target or the reason the
 * path is refused; unexpected filesystem failures throw.
 */
export function resolveIn(directory: string, input: Input): Target | PathError {
  const path = input.path
  if (path.includes("\0")) return new PathError({ path, reason: "invalid_path" })
  const relativeInput = !isAbsolute(path)
  const absolute = resolvePath(directory, path)
  const lexicallyInternal = contains(directory, absolute)
  if (relativeInput && (!lexicallyInternal || climbsOut(path)))
    return new PathError({ path, reason: "relative_escape" })
  let found: Found
  try {
    found = canonicalize(absolute, input.kind)
  } catch (error) {
    if (error instanceof PathError) return new PathError({ path, reason: error.reason })
    // ENOENT/ENOTDIR here mean a segment vanished or changed type between two of our own calls
    // (someone is renaming or swapping links right now): refuse rather than guess.
    if (
      error instanceof Unresolvable ||
      ["ELOOP", "ENAMETOOLONG", "ENOENT", "ENOTDIR"].includes(errorCode(error) ?? "")
    )
      return new PathError({ path, reason: "invalid_path" })
    throw error
  }
  const root = realpathSync(directory)
  if (lexicallyInternal) {
    if (!contains(root, found.canonical)) return new PathError({ path, reason: "location_escape" })
    return { canonical: found.canonical, resource: slashes(relative(root, found.canonical)) || "." }
  }
  const boundary = slashes(found.directory)
  const resource = boundary.endsWith("/") ? `${boundary}*` : `${boundary}/*`
  return {
    canonical: found.canonical,
    resource: slashes(found.canonical),
    externalDirectory: { action: "external_directory", directory: found.directory, resource, save: resource },
  }
}

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const location = yield* Location.Service
    const resolve = Effect.fn("LocationMutation.resolve")(function* (input: Input) {
      const result = yield* Effect.sync(() => resolveIn(location.directory, { path: input.path, kind: input.kind }))
      if (result instanceof PathError) return yield* result
      return result
    })
    return Service.of({ resolve })
  }),
)
