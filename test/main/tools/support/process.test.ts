import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { run, SpawnError } from "@main/tools/support/process"
import { makeTempDir } from "../../../support/temp"

const limits = { stdout: 1024 * 1024, stderr: 1024 * 1024 }
const sh = (script: string, extra: Partial<Parameters<typeof run>[0]> = {}) =>
  run({ file: "/bin/sh", args: ["-c", script], cwd: makeTempDir(), maxBytes: limits, ...extra })

/**
 * Whether `pid` still runs. A zombie does not: where PID 1 does not reap orphans (containers), a
 * killed process stays a zombie although nothing of it runs any more.
 */
function running(pid: number): boolean {
  if (process.platform !== "linux") {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]
    return state !== "Z" && state !== "X"
  } catch {
    return false
  }
}

/** Resolves once `check` holds (polling the filesystem, which has no signal to await). */
const until = (check: () => boolean, ms = 10_000) =>
  Effect.promise(async () => {
    const deadline = Date.now() + ms
    while (!check()) {
      if (Date.now() > deadline) throw new Error("condition not reached in time")
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })

const pidsIn = (file: string) => readFileSync(file, "utf8").trim().split("\n").map(Number)

describe("tools/support/process", () => {
  it.effect("captures stdout and stderr in arrival order with the exit code", () =>
    Effect.gen(function* () {
      const result = yield* sh("echo one; sleep 0.05; echo two >&2; sleep 0.05; echo three; exit 3")
      assert.strictEqual(result.exitCode, 3)
      assert.strictEqual(result.output, "one\ntwo\nthree\n")
      assert.strictEqual(result.stdout, "one\nthree\n")
      assert.strictEqual(result.stderr, "two\n")
      assert.isFalse(result.timedOut)
      assert.isFalse(result.stdoutTruncated || result.stderrTruncated)
    }),
  )

  it.effect("keeps each stream within its own limit and drains the rest so the child finishes", () =>
    Effect.gen(function* () {
      const result = yield* sh("head -c 300000 /dev/zero | tr '\\0' o; head -c 50 /dev/zero | tr '\\0' e >&2", {
        maxBytes: { stdout: 100_000, stderr: 1_000 },
      })
      assert.strictEqual(result.exitCode, 0)
      assert.strictEqual(result.stdout, "o".repeat(100_000))
      assert.strictEqual(result.stderr, "e".repeat(50))
      assert.isTrue(result.stdoutTruncated)
      assert.isFalse(result.stderrTruncated)
    }),
  )

  it.effect("does not split a multi-byte character across chunks", () =>
    Effect.gen(function* () {
      const result = yield* sh("printf '\\342\\202'; sleep 0.05; printf '\\254\\n'")
      assert.strictEqual(result.stdout, "€\n")
    }),
  )

  it.effect("terminates the whole process group on timeout, background children included", () =>
    Effect.gen(function* () {
      const dir = makeTempDir()
      const pids = join(dir, "pids")
      const result = yield* sh(`echo $$ > ${pids}; sleep 1000 & echo $! >> ${pids}; echo started; wait`, {
        timeoutMs: 300,
      })
      assert.isTrue(result.timedOut)
      assert.strictEqual(result.exitCode, null)
      assert.strictEqual(result.stdout, "started\n")
      const [shell, child] = pidsIn(pids)
      assert.isFalse(running(shell!))
      assert.isFalse(running(child!))
    }),
  )

  it.effect("sends SIGKILL after the grace period when the group ignores SIGTERM", () =>
    Effect.gen(function* () {
      const dir = makeTempDir()
      const pids = join(dir, "pids")
      const started = Date.now()
      const result = yield* sh(
        `trap '' TERM; sleep 1000 >/dev/null 2>&1 & echo $! > ${pids}; while :; do sleep 0.05; done`,
        { timeoutMs: 200, killGraceMs: 300 },
      )
      assert.isTrue(result.timedOut)
      assert.strictEqual(result.signal, "SIGKILL")
      assert.isAtLeast(Date.now() - started, 500)
      assert.isFalse(running(pidsIn(pids)[0]!))
    }),
  )

  it.effect("terminates the group when the caller is interrupted and resumes only once it is gone", () =>
    Effect.gen(function* () {
      const dir = makeTempDir()
      const pids = join(dir, "pids")
      const fiber = yield* Effect.forkChild(
        sh(`echo $$ > ${pids}.tmp; sleep 1000 & echo $! >> ${pids}.tmp; mv ${pids}.tmp ${pids}; wait`),
      )
      yield* until(() => existsSync(pids))
      yield* Fiber.interrupt(fiber)
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.hasInterrupts(exit))
      for (const pid of pidsIn(pids)) assert.isFalse(running(pid))
    }),
  )

  it.effect("stops the command early when the stdout observer asks it to", () =>
    Effect.gen(function* () {
      let seen = 0
      const result = yield* sh("while :; do echo line; done", {
        maxBytes: { stdout: 0, stderr: 0 },
        onStdout: (chunk) => (seen += chunk.length) > 10_000,
      })
      assert.isTrue(result.stopped)
      assert.isFalse(result.timedOut)
      assert.strictEqual(result.stdout, "")
    }),
  )

  it.effect("fails with SpawnError for a missing program, a missing directory or a NUL byte", () =>
    Effect.gen(function* () {
      const missingProgram = yield* Effect.flip(run({ file: "/nonexistent/sh", args: [], cwd: "/", maxBytes: limits }))
      assert.instanceOf(missingProgram, SpawnError)
      const missingDirectory = yield* Effect.flip(
        run({ file: "/bin/sh", args: ["-c", "true"], cwd: join(makeTempDir(), "gone"), maxBytes: limits }),
      )
      assert.instanceOf(missingDirectory, SpawnError)
      const nul = yield* Effect.flip(run({ file: "/bin/sh", args: ["-c", "echo a\0b"], cwd: "/", maxBytes: limits }))
      assert.instanceOf(nul, SpawnError)
    }),
  )
})
