import { spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { StringDecoder } from "node:string_decoder"
import { Effect, Schema } from "effect"

// Child processes for the built-in tools (bash, and ripgrep for glob/grep). Each child leads its
// own process group on POSIX, so a timeout or an interruption can end everything the command
// started — not just the shell — and the caller only resumes once that group is gone.

/** SIGKILL follows SIGTERM after this long when the group is still running (SPEC-CORE E.5). */
export const KILL_GRACE_MS = 3_000
/** How long we wait for the group to disappear after SIGKILL before giving up on it. */
const KILL_WAIT_MS = 2_000
/** After the group is gone, how long a pipe held open by an escaped process may delay the result. */
const DRAIN_WAIT_MS = 500
const POLL_MS = 20

const isWindows = process.platform === "win32"

/** The process could not be started (missing program or directory, invalid argument, …). */
export class SpawnError extends Schema.TaggedError<SpawnError>()("Process.SpawnError", {
  file: Schema.String,
  cause: Schema.Defect(),
}) {
  override get message() {
    return `Unable to start ${this.file}`
  }
}

export interface Options {
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly env?: NodeJS.ProcessEnv
  /** Terminates the whole process group after this many milliseconds; the result says `timedOut`. */
  readonly timeoutMs?: number
  /** Time between SIGTERM and SIGKILL; default {@link KILL_GRACE_MS}. */
  readonly killGraceMs?: number
  /** Bytes of each stream kept in memory; the rest is read and dropped so the child never blocks. */
  readonly maxBytes: { readonly stdout: number; readonly stderr: number }
  /**
   * Sees every stdout chunk, including bytes beyond the capture limit. Returning `true` stops the
   * command early: its group is terminated and the result says `stopped`.
   */
  readonly onStdout?: (chunk: Buffer) => boolean | void
}

export interface Result {
  /** `null` when the process ended through a signal. */
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  /** The captured stdout and stderr text, interleaved in the order it arrived. */
  readonly output: string
  readonly stdout: string
  readonly stderr: string
  readonly stdoutTruncated: boolean
  readonly stderrTruncated: boolean
  /** The timeout fired and the group was terminated. */
  readonly timedOut: boolean
  /** `onStdout` asked to stop and the group was terminated. */
  readonly stopped: boolean
}

interface Running {
  /** Settles once the child has exited and its pipes are closed (after any termination). */
  readonly done: Promise<Result>
  /** Terminates the group if the child still runs; resolves when the group is gone. Never rejects. */
  readonly stop: () => Promise<void>
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Whether any member of process group `pgid` still runs. Zombies do not count: where PID 1 does
 * not reap orphans (containers), a killed grandchild stays a zombie forever, yet it runs nothing.
 */
export function groupRunning(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
  } catch {
    // ESRCH: nothing left. EPERM: the id now belongs to another user's processes, so ours are gone.
    return false
  }
  if (process.platform !== "linux") return true
  let entries: string[]
  try {
    entries = readdirSync("/proc")
  } catch {
    return true
  }
  for (const entry of entries) {
    if (!/^\d+$/u.test(entry)) continue
    const state = processState(Number(entry))
    if (state && state.pgid === pgid && state.state !== "Z" && state.state !== "X") return true
  }
  return false
}

/** State letter and process group of a Linux process, or undefined if it is gone. */
export function processState(pid: number): { readonly state: string; readonly pgid: number } | undefined {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    return undefined
  }
  // The command name is parenthesized and may itself contain spaces or parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return { state: fields[0] ?? "", pgid: Number(fields[2]) }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(isWindows ? pid : -pid, signal)
  } catch {
    // Already gone.
  }
}

async function waitUntilGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  for (;;) {
    if (!groupRunning(pid)) return true
    if (Date.now() >= deadline) return false
    await sleep(POLL_MS)
  }
}

/** SIGTERM to the whole group, SIGKILL after the grace period, then wait until nothing runs. */
async function terminateGroup(pid: number, graceMs: number): Promise<void> {
  signalGroup(pid, "SIGTERM")
  if (isWindows) return
  if (await waitUntilGone(pid, graceMs)) return
  signalGroup(pid, "SIGKILL")
  await waitUntilGone(pid, KILL_WAIT_MS)
}

interface Capture {
  readonly decoder: StringDecoder
  bytes: number
  truncated: boolean
}

function start(options: Options): Running {
  // Throws synchronously for arguments Node refuses (e.g. a NUL byte); the caller maps that.
  const child = spawn(options.file, [...options.args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: !isWindows,
    windowsHide: true,
  })
  const pieces: Array<{ readonly stream: "stdout" | "stderr"; readonly text: string }> = []
  const captures = {
    stdout: { decoder: new StringDecoder("utf8"), bytes: 0, truncated: false } as Capture,
    stderr: { decoder: new StringDecoder("utf8"), bytes: 0, truncated: false } as Capture,
  }
  let timedOut = false
  let stopped = false
  let settled = false
  let terminating: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined

  const terminate = (): Promise<void> => {
    if (terminating) return terminating
    const pid = child.pid
    terminating = pid === undefined ? Promise.resolve() : terminateGroup(pid, options.killGraceMs ?? KILL_GRACE_MS)
    void terminating.then(() => {
      if (settled) return
      // A process that left the group (setsid) may still hold our pipes; do not wait for it.
      setTimeout(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
      }, DRAIN_WAIT_MS).unref()
    })
    return terminating
  }

  const keep = (stream: "stdout" | "stderr", chunk: Buffer) => {
    const capture = captures[stream]
    const limit = options.maxBytes[stream]
    const room = Math.max(0, limit - capture.bytes)
    if (chunk.length > room) capture.truncated = true
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
    if (kept.length === 0) return
    capture.bytes += kept.length
    const text = capture.decoder.write(kept)
    if (text) pieces.push({ stream, text })
  }

  child.stdout?.on("data", (chunk: Buffer) => {
    if (!stopped && options.onStdout?.(chunk) === true) {
      stopped = true
      void terminate()
    }
    keep("stdout", chunk)
  })
  child.stderr?.on("data", (chunk: Buffer) => keep("stderr", chunk))

  const done = new Promise<Result>((resolve, reject) => {
    child.once("error", (error) => {
      // Emitted when the program or directory cannot be used; the child never ran.
      if (settled || child.pid !== undefined) return
      settled = true
      if (timer) clearTimeout(timer)
      reject(error)
    })
    child.once("close", (code, signal) => {
      if (settled) return
      settled = true
      if (timer) clearTimeout(timer)
      const finish = () => {
        for (const stream of ["stdout", "stderr"] as const) {
          const rest = captures[stream].decoder.end()
          if (rest) pieces.push({ stream, text: rest })
        }
        const join = (stream?: "stdout" | "stderr") =>
          pieces
            .filter((piece) => stream === undefined || piece.stream === stream)
            .map((piece) => piece.text)
            .join("")
        resolve({
          exitCode: code,
          signal,
          output: join(),
          stdout: join("stdout"),
          stderr: join("stderr"),
          stdoutTruncated: captures.stdout.truncated,
          stderrTruncated: captures.stderr.truncated,
          timedOut,
          stopped,
        })
      }
      // Report only once everything the termination started has finished.
      if (terminating) void terminating.then(finish)
      else finish()
    })
  })

  if (options.timeoutMs !== undefined && child.pid !== undefined) {
    timer = setTimeout(() => {
      timedOut = true
      void terminate()
    }, options.timeoutMs)
  }

  return {
    done,
    stop: async () => {
      if (settled && !terminating) return
      await terminate()
      await done.catch(() => undefined)
    },
  }
}

/**
 * Runs a program in its own process group. The returned effect resumes only when the child has
 * exited and its output is collected; interrupting it terminates the whole group (SIGTERM, then
 * SIGKILL after the grace period) and waits until nothing in the group runs.
 */
export const run = (options: Options): Effect.Effect<Result, SpawnError> =>
  Effect.acquireUseRelease(
    Effect.try({ try: () => start(options), catch: (cause) => new SpawnError({ file: options.file, cause }) }),
    (running) =>
      Effect.tryPromise({ try: () => running.done, catch: (cause) => new SpawnError({ file: options.file, cause }) }),
    (running) => Effect.promise(() => running.stop()),
  )
