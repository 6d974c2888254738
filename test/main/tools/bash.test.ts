import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Schema } from "effect"
import fc from "fast-check"
import type { Config } from "@core/config/Config"
import type { PermissionRequest } from "@contract/model"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { ToolRegistry } from "@core/tool/ToolRegistry"
import { BashTool } from "@main/tools/bash"
import { autoAnswer, locationTestLayer, makeSession } from "../../support/location"
import { makeTempDir } from "../../support/temp"

// Layout (B = a fresh temp dir): B/project is the Location (with B/project/sub), B/elsewhere is a
// directory outside it. Temp directories sit under the system tmp dir, which the built-in agents
// allow through `external_directory <TMP>/*`; the configs below add rules after those to force asks.
function fixture() {
  const base = makeTempDir()
  const directory = join(base, "project")
  const outside = join(base, "elsewhere")
  mkdirSync(join(directory, "sub"), { recursive: true })
  mkdirSync(outside)
  writeFileSync(join(outside, "note.txt"), "outside note\n")
  return { base, directory, outside }
}

type Rule = { readonly action: string; readonly resource: string; readonly effect: "allow" | "deny" | "ask" }
const rules = (...list: Rule[]): Config.GatehouseConfig => ({ agents: { build: list } })
const askAll: Rule = { action: "*", resource: "*", effect: "ask" }
const allowAll: Rule = { action: "*", resource: "*", effect: "allow" }

const layer = (directory: string, config: Config.GatehouseConfig = rules(allowAll)) =>
  locationTestLayer({ dataDir: makeTempDir(), directory, config })

/** Registers the real bash tool and returns a settle function over one materialization, as the runner uses. */
const catalog = Effect.gen(function* () {
  const session = yield* makeSession()
  const registry = yield* ToolRegistry.Service
  yield* registry.register({ bash: yield* BashTool.make })
  const materialized = yield* registry.materialize()
  return (input: unknown) =>
    materialized.settle({
      sessionID: session.id,
      agent: "build",
      assistantMessageID: "msg_1",
      call: { id: "call_1", name: "bash", input },
    })
})

const settle = (input: unknown) => Effect.scoped(Effect.flatMap(catalog, (settleCall) => settleCall(input)))

const textOf = (settlement: ToolRegistry.Settlement) => {
  assert.strictEqual(settlement.result.type, "text", JSON.stringify(settlement.result))
  return settlement.result.value as string
}
const errorOf = (settlement: ToolRegistry.Settlement) => {
  assert.strictEqual(settlement.result.type, "error", JSON.stringify(settlement.result))
  return settlement.result.value as string
}
const structuredOf = (settlement: ToolRegistry.Settlement) => settlement.output?.structured as BashTool.Output

const summary = (asks: ReadonlyArray<PermissionRequest>) =>
  asks.map((ask) => ({ action: ask.action, resources: ask.resources, save: ask.save }))

/** Whether `pid` still runs; a zombie (never reaped where PID 1 does not reap) runs nothing. */
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

const until = (check: () => boolean, ms = 10_000) =>
  Effect.promise(async () => {
    const deadline = Date.now() + ms
    while (!check()) {
      if (Date.now() > deadline) throw new Error("condition not reached in time")
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })

const pidsIn = (file: string) => readFileSync(file, "utf8").trim().split("\n").map(Number)

describe("BashTool", () => {
  it.effect("asks bash for the exact command, runs it in the real Location path and reports the exit code", () => {
    const { directory } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const settlement = yield* settle({ command: "pwd" })
        assert.deepStrictEqual(summary(asked), [{ action: "bash", resources: ["pwd"], save: ["pwd"] }])
        assert.deepStrictEqual(asked[0]!.source, { type: "tool", messageID: "msg_1", callID: "call_1" })
        assert.deepStrictEqual(asked[0]!.metadata, { workdir: "." })
        assert.strictEqual(textOf(settlement), `${directory}\n\n\nCommand exited with code 0.`)
        assert.deepStrictEqual(structuredOf(settlement), {
          command: "pwd",
          cwd: directory,
          exitCode: 0,
          output: `${directory}\n`,
          truncated: false,
        })
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("separates the output from the status line with a blank line", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      assert.strictEqual(
        textOf(yield* settle({ command: "printf 'hello\\n'" })),
        "hello\n\n\nCommand exited with code 0.",
      )
      assert.strictEqual(textOf(yield* settle({ command: "true" })), "(no output)\n\nCommand exited with code 0.")
      assert.strictEqual(structuredOf(yield* settle({ command: "true" })).output, "(no output)")
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("ignores fields it does not know, such as a description", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      const settlement = yield* settle({ command: "echo ok", description: "Prints ok" })
      assert.strictEqual(textOf(settlement), "ok\n\n\nCommand exited with code 0.")
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("reports a non-zero exit code as a successful result with stdout and stderr in order", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      const settlement = yield* settle({ command: "echo out; echo err >&2; exit 3" })
      assert.strictEqual(textOf(settlement), "out\nerr\n\n\nCommand exited with code 3.")
      assert.strictEqual(structuredOf(settlement).exitCode, 3)
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("reports a shell ended by a signal", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      const settlement = yield* settle({ command: "kill -9 $$" })
      assert.strictEqual(textOf(settlement), "(no output)\n\nCommand terminated by signal SIGKILL.")
      assert.strictEqual(structuredOf(settlement).exitCode, null)
      assert.strictEqual(structuredOf(settlement).signal, "SIGKILL")
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("keeps at most 1 MiB of stdout and of stderr and says so", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      const out = yield* settle({ command: "head -c 1500000 /dev/zero | tr '\\0' o" })
      const stdout = structuredOf(out)
      assert.isTrue(stdout.truncated)
      assert.isTrue(stdout.stdoutTruncated)
      assert.isUndefined(stdout.stderrTruncated)
      assert.strictEqual(stdout.output, `${"o".repeat(BashTool.MAX_CAPTURE_BYTES)}\n\n${BashTool.CAPTURE_NOTICE}`)
      assert.strictEqual(stdout.exitCode, 0)
      const err = structuredOf(yield* settle({ command: "head -c 1500000 /dev/zero | tr '\\0' e >&2; echo done" }))
      assert.isTrue(err.stderrTruncated)
      assert.isUndefined(err.stdoutTruncated)
      assert.strictEqual(
        err.output.length,
        BashTool.MAX_CAPTURE_BYTES + "done\n".length + 2 + BashTool.CAPTURE_NOTICE.length,
      )
      assert.isTrue(err.output.endsWith(`\n\n${BashTool.CAPTURE_NOTICE}`))
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("ends the whole process group on timeout and reports it", () => {
    const { directory } = fixture()
    const pids = join(directory, "pids")
    return Effect.gen(function* () {
      const settlement = yield* settle({
        command: `echo $$ > ${pids}; sleep 1000 & echo $! >> ${pids}; echo started; wait`,
        timeout: 300,
      })
      const output = structuredOf(settlement)
      assert.isTrue(output.timedOut)
      assert.strictEqual(output.output, `started\n\n\n${BashTool.timeoutNotice(300)}`)
      assert.strictEqual(
        textOf(settlement),
        "started\n\n\nCommand exceeded timeout of 300 ms. Retry with a larger timeout if the command is expected to take longer.\n\nCommand timed out before completion.",
      )
      for (const pid of pidsIn(pids)) assert.isFalse(running(pid))
      const silent = structuredOf(yield* settle({ command: "sleep 1000", timeout: 100 }))
      assert.strictEqual(
        silent.output,
        "Command exceeded timeout of 100 ms. Retry with a larger timeout if the command is expected to take longer.",
      )
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("ends the whole process group when the call is interrupted", () => {
    const { base, directory } = fixture()
    const pids = join(base, "pids")
    return Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(
        settle({ command: `echo $$ > ${pids}.tmp; sleep 1000 & echo $! >> ${pids}.tmp; mv ${pids}.tmp ${pids}; wait` }),
      )
      yield* until(() => existsSync(pids))
      yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(fiber)))
      const [shell, child] = pidsIn(pids)
      assert.isFalse(running(shell!))
      assert.isFalse(running(child!))
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("resolves a relative workdir from the Location without asking external_directory", () => {
    const { directory } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const settlement = yield* settle({ command: "pwd", workdir: "sub" })
        assert.deepStrictEqual(
          asked.map((ask) => ask.action),
          ["bash"],
        )
        assert.deepStrictEqual(asked[0]!.metadata, { workdir: "sub" })
        assert.strictEqual(structuredOf(settlement).output, `${join(directory, "sub")}\n`)
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("asks external_directory for an outside workdir before bash", () => {
    const { directory, outside } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const settlement = yield* settle({ command: "pwd", workdir: outside })
        assert.deepStrictEqual(summary(asked), [
          { action: "external_directory", resources: [`${outside}/*`], save: [`${outside}/*`] },
          { action: "bash", resources: ["pwd"], save: ["pwd"] },
        ])
        assert.strictEqual(structuredOf(settlement).cwd, outside)
        assert.strictEqual(structuredOf(settlement).output, `${outside}\n`)
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("runs nothing when external_directory or bash is denied by a rule", () => {
    const { base, directory, outside } = fixture()
    const marker = join(base, "ran")
    return Effect.gen(function* () {
      const external = yield* settle({ command: `touch ${marker}`, workdir: outside })
      assert.strictEqual(errorOf(external), "Permission denied: external_directory")
      const bash = yield* settle({ command: `touch ${marker}`, workdir: "sub" })
      assert.strictEqual(errorOf(bash), "Permission denied: bash")
      assert.isFalse(existsSync(marker))
    }).pipe(
      Effect.provide(
        layer(
          directory,
          rules(
            allowAll,
            { action: "external_directory", resource: "*", effect: "deny" },
            { action: "bash", resource: `touch ${marker}`, effect: "deny" },
          ),
        ),
      ),
    )
  })

  it.effect("hands the person's feedback to the model and runs nothing when a call is rejected with it", () => {
    const { base, directory } = fixture()
    const marker = join(base, "ran")
    return Effect.scoped(
      Effect.gen(function* () {
        yield* autoAnswer(() => ({ reply: "reject", message: "use ls instead" }))
        const settlement = yield* settle({ command: `touch ${marker}` })
        assert.strictEqual(
          errorOf(settlement),
          "The user rejected permission to use this specific tool call with the following feedback: use ls instead",
        )
        assert.isFalse(existsSync(marker))
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("lets a plain rejection stop the session as a DeclinedError defect", () => {
    const { base, directory } = fixture()
    const marker = join(base, "ran")
    return Effect.scoped(
      Effect.gen(function* () {
        yield* autoAnswer(() => ({ reply: "reject" }))
        const exit = yield* Effect.exit(settle({ command: `touch ${marker}` }))
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
        const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        assert.instanceOf(defect, PermissionV2.DeclinedError)
        assert.isFalse(existsSync(marker))
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("does not run the command when the workdir became a file during approval", () => {
    const { base, directory } = fixture()
    const marker = join(base, "ran")
    const workdir = join(directory, "sub")
    return Effect.scoped(
      Effect.gen(function* () {
        yield* autoAnswer(() => {
          rmSync(workdir, { recursive: true })
          writeFileSync(workdir, "now a file")
          return { reply: "once" }
        })
        const settlement = yield* settle({ command: `touch ${marker}`, workdir: "sub" })
        assert.strictEqual(errorOf(settlement), `Working directory is not a directory: ${workdir}`)
        assert.isFalse(existsSync(marker))
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("warns about absolute arguments outside the workdir without asking or blocking", () => {
    const { directory, outside } = fixture()
    const warning = `Command argument references external directory ${outside}/*. Bash runs with host-user filesystem, process, and network authority; this scan is advisory only.`
    return Effect.scoped(
      Effect.gen(function* () {
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const settlement = yield* settle({ command: `cat "${join(outside, "note.txt")}"; ls ${directory} >/dev/null;` })
        assert.deepStrictEqual(
          asked.map((ask) => ask.action),
          ["bash"],
        )
        assert.deepStrictEqual(asked[0]!.metadata, { workdir: ".", warnings: [warning] })
        assert.strictEqual(
          textOf(settlement),
          `outside note\n\n\nWarnings:\n- ${warning}\n\nCommand exited with code 0.`,
        )
        assert.deepStrictEqual(structuredOf(settlement).warnings, [warning])
      }),
    ).pipe(
      Effect.provide(layer(directory, rules(askAll, { action: "external_directory", resource: "*", effect: "deny" }))),
    )
  })

  it.effect("runs the configured shell", () => {
    const { base, directory } = fixture()
    const shell = join(base, "shell.sh")
    writeFileSync(shell, `#!/bin/sh\necho "via configured shell: $1"\nexec /bin/sh "$@"\n`)
    chmodSync(shell, 0o755)
    return Effect.gen(function* () {
      const settlement = yield* settle({ command: "echo hi" })
      assert.strictEqual(structuredOf(settlement).output, "via configured shell: -c\nhi\n")
    }).pipe(Effect.provide(layer(directory, { ...rules(allowAll), shell })))
  })

  it.effect("fails with the reference message when the command cannot be started", () => {
    const { base, directory } = fixture()
    return Effect.gen(function* () {
      assert.strictEqual(errorOf(yield* settle({ command: "echo hi" })), "Unable to execute command: echo hi")
      assert.strictEqual(errorOf(yield* settle({ command: "echo a\0b" })), "Unable to execute command: echo a\0b")
    }).pipe(Effect.provide(layer(directory, { ...rules(allowAll), shell: join(base, "no-such-shell") })))
  })

  it.effect("refuses a relative workdir that leaves the Location before asking anything", () => {
    const { directory } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const settlement = yield* settle({ command: "pwd", workdir: "../elsewhere" })
        assert.strictEqual(errorOf(settlement), 'Relative path "../elsewhere" leaves the location')
        assert.strictEqual(asked.length, 0)
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("accepts timeouts from 1 ms to 10 minutes and nothing else", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      for (const timeout of [0, -1, 1.5, 600_001, "100"])
        assert.match(errorOf(yield* settle({ command: "true", timeout })), /^Invalid tool input: /u)
      // Valid timeouts reach the executor (and its permission check) without running anything long.
      for (const timeout of [1, 600_000])
        assert.strictEqual(errorOf(yield* settle({ command: "true", timeout })), "Permission denied: bash")
    }).pipe(Effect.provide(layer(directory, rules({ action: "bash", resource: "*", effect: "deny" }))))
  })

  it.effect("advertises that bash is not sandboxed", () => {
    const { directory } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        const registry = yield* ToolRegistry.Service
        yield* registry.register({ bash: yield* BashTool.make })
        const [definition] = (yield* registry.materialize()).definitions
        assert.include(
          definition!.description,
          "Bash is not sandboxed: the spawned shell runs with the host user's filesystem, process, and network authority.",
        )
        assert.deepStrictEqual(Object.keys((definition!.inputSchema as { properties: object }).properties), [
          "command",
          "workdir",
          "timeout",
        ])
      }),
    ).pipe(Effect.provide(layer(directory)))
  })

  it.effect("never reaches the executor for input that does not decode, and never crashes", () => {
    const { base, directory } = fixture()
    // A shell that records every start: proof that no process ran, not just that nothing was asked.
    const spawned = join(base, "spawned")
    const shell = join(base, "recording-shell.sh")
    writeFileSync(shell, `#!/bin/sh\necho start >> '${spawned}'\nexec /bin/sh "$@"\n`)
    chmodSync(shell, 0o755)
    const decodes = Schema.decodeUnknownExit(Schema.toCodecJson(BashTool.Input))
    const nearlyValid = fc.record(
      {
        command: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        workdir: fc.oneof(fc.string(), fc.constantFrom(".", "sub", "/", "../x", "\0")),
        timeout: fc.oneof(fc.integer(), fc.double(), fc.string()),
      },
      { requiredKeys: [] },
    )
    return Effect.scoped(
      Effect.gen(function* () {
        // Every ask is rejected with feedback: decodable calls end at the person, so none runs.
        const asked = yield* autoAnswer(() => ({ reply: "reject", message: "not now" }))
        const settleCall = yield* catalog
        const seen = { decoded: 0, refused: 0 }
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.oneof(fc.jsonValue(), nearlyValid), async (raw) => {
              const input: unknown = JSON.parse(JSON.stringify(raw) ?? "null")
              const before = asked.length
              const exit = await Effect.runPromiseExit(settleCall(input))
              assert.isTrue(Exit.isSuccess(exit), "settlement never dies or fails")
              if (!Exit.isSuccess(exit)) return
              if (Exit.isSuccess(decodes(input))) {
                seen.decoded++
                assert.notMatch(errorOf(exit.value), /^Invalid tool input/u)
              } else {
                seen.refused++
                assert.match(errorOf(exit.value), /^Invalid tool input: /u)
                assert.strictEqual(asked.length, before)
              }
            }),
          ),
        )
        assert.isAbove(seen.decoded, 0)
        assert.isAbove(seen.refused, 0)
        assert.isAbove(asked.length, 0)
        assert.isFalse(existsSync(spawned))
      }),
    ).pipe(Effect.provide(layer(directory, { ...rules(askAll), shell })))
  })
})
