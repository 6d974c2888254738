import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync } from "node:fs"
import { basename, dirname, join, parse } from "node:path"

// Directory-anchored file access. LocationMutation hands tools a canonical path (no symbolic links)
// BEFORE approval; by the time the tool acts, anything with filesystem access (a bash call, another
// process) may have swapped a directory on that path for a link to the outside. So tools never act
// on the path string alone: they open the parent directory, check that the open directory really is
// the canonical one, and name the file relative to that open directory. On Linux the name goes
// through `/proc/self/fd/<fd>/<name>`, which resolves from the open directory itself (like openat),
// so a later swap of any ancestor cannot redirect the operation; the last component is opened with
// O_NOFOLLOW, so a link put in the file's place is refused rather than followed. Elsewhere the same
// checks run on plain paths (best effort: a narrow race remains).

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0
const O_DIRECTORY = constants.O_DIRECTORY ?? 0
const O_NONBLOCK = constants.O_NONBLOCK ?? 0

/** Flags to open an existing file for reading: never through a link, never blocking on a FIFO. */
export const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK
/** Flags to create a new file that must not exist yet (a link in its place counts as existing). */
export const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW

let procFd: boolean | undefined
const anchoredByFd = () => (procFd ??= process.platform === "linux" && existsSync("/proc/self/fd"))

/** The directory on the path is no longer the one that was resolved (moved, replaced, or a link). */
export class MovedError extends Error {
  readonly code = "EMOVED"
  constructor(readonly directory: string) {
    super(`Directory changed during the operation: ${directory}`)
  }
}

/** An open, verified directory. Close it when done. */
export interface Anchor {
  /** The canonical directory it was verified to be. */
  readonly directory: string
  /** A path for the directory itself (for `readdir`), resolved from the open directory. */
  readonly self: string
  /** A path naming `name` directly inside the open directory. */
  readonly child: (name: string) => string
  readonly close: () => void
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined
}

function fdAnchor(fd: number, directory: string): Anchor {
  let open = true
  return {
    directory,
    self: `/proc/self/fd/${fd}`,
    child: (name) => `/proc/self/fd/${fd}/${name}`,
    close: () => {
      if (!open) return
      open = false
      closeSync(fd)
    },
  }
}

function verifiedFd(fd: number, directory: string): Anchor {
  let real: string
  try {
    real = readlinkSync(`/proc/self/fd/${fd}`)
  } catch (error) {
    closeSync(fd)
    throw error
  }
  if (real !== directory) {
    closeSync(fd)
    throw new MovedError(directory)
  }
  return fdAnchor(fd, directory)
}

function pathAnchor(directory: string): Anchor {
  if (realpathSync(directory) !== directory) throw new MovedError(directory)
  return { directory, self: directory, child: (name) => join(directory, name), close: () => {} }
}

/** Opens the existing canonical `directory` and checks it is still that directory. */
export function openDirectory(directory: string): Anchor {
  if (!anchoredByFd()) return pathAnchor(directory)
  return verifiedFd(openSync(directory, constants.O_RDONLY | O_DIRECTORY), directory)
}

/**
 * Opens the canonical `directory`, creating its missing tail first. Each missing directory is
 * created inside the previously opened one and opened without following links, so the new
 * directories can only appear under the verified nearest existing ancestor.
 */
export function openOrCreateDirectory(directory: string): Anchor {
  const missing: string[] = []
  let existing = directory
  while (true) {
    try {
      lstatSync(existing)
      break
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error
      if (existing === parse(existing).root) throw error
      missing.unshift(basename(existing))
      existing = dirname(existing)
    }
  }
  if (!anchoredByFd()) {
    if (realpathSync(existing) !== existing) throw new MovedError(existing)
    if (missing.length > 0) mkdirSync(directory, { recursive: true })
    return pathAnchor(directory)
  }
  const first = openDirectory(existing)
  if (missing.length === 0) return first
  let parent = first.child
  let close = first.close
  let fd = -1
  for (const segment of missing) {
    const next = parent(segment)
    try {
      try {
        mkdirSync(next)
      } catch (error) {
        if (errorCode(error) !== "EEXIST") throw error
      }
      fd = openSync(next, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    } finally {
      close()
    }
    const opened = fd
    parent = (name) => `/proc/self/fd/${opened}/${name}`
    close = () => closeSync(opened)
  }
  // Each directory was created and opened inside the previous one, so the chain cannot leave the
  // ancestor; this only catches the ancestor itself having been moved meanwhile.
  return verifiedFd(fd, directory)
}

/** Runs `use` with the open parent directory of the canonical `path`, closing it afterwards. */
export async function withParent<A>(
  path: string,
  options: { readonly create?: boolean },
  use: (anchor: Anchor, name: string) => Promise<A>,
): Promise<A> {
  const anchor = options.create ? openOrCreateDirectory(dirname(path)) : openDirectory(dirname(path))
  try {
    return await use(anchor, basename(path))
  } finally {
    anchor.close()
  }
}
