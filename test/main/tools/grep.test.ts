import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import fc from "fast-check"
import type { Config } from "@core/config/Config"
import { ToolOutputStore } from "@core/output/ToolOutputStore"
import { ToolRegistry } from "@core/tool/ToolRegistry"
import { GrepTool } from "@main/tools/grep"
import { autoAnswer, locationTestLayer, makeSession } from "../../support/location"
import { makeTempDir } from "../../support/temp"

// Layout (B = a fresh temp dir, R = B/project is the Location):
//   B/elsewhere/secret.txt ("needle outside")   B/sentinel (created only if a preprocessor ever runs)
//   R/src/a.ts ("const needle = 1" on line 2)   R/src/b.js ("needle()" on lines 1 and 3)
//   R/notes.md ("no match")   R/.git/config ("needle in git")   R/pre.sh (touches B/sentinel)
//   R/link-out -> B/elsewhere   R/file-out.txt -> B/elsewhere/secret.txt
function fixture() {
  const base = makeTempDir()
  const directory = join(base, "project")
  const outside = join(base, "elsewhere")
  for (const dir of [join(directory, "src"), join(directory, ".git"), outside]) mkdirSync(dir, { recursive: true })
  writeFileSync(join(outside, "secret.txt"), "needle outside\n")
  writeFileSync(join(directory, "src", "a.ts"), "// header\nconst needle = 1\n")
  writeFileSync(join(directory, "src", "b.js"), "needle()\nother()\nneedle(2)\n")
  writeFileSync(join(directory, "notes.md"), "no match\n")
  writeFileSync(join(directory, ".git", "config"), "needle in git\n")
  const sentinel = join(base, "sentinel")
  writeFileSync(join(directory, "pre.sh"), `#!/bin/sh\ntouch '${sentinel}'\ncat "$1"\n`)
  chmodSync(join(directory, "pre.sh"), 0o755)
  symlinkSync(outside, join(directory, "link-out"))
  symlinkSync(join(outside, "secret.txt"), join(directory, "file-out.txt"))
  return { base, directory, outside, sentinel }
}

type Rule = { readonly action: string; readonly resource: string; readonly effect: "allow" | "deny" | "ask" }
const rules = (...list: Rule[]): Config.GatehouseConfig => ({ agents: { build: list } })
const askAll: Rule = { action: "*", resource: "*", effect: "ask" }

const layer = (directory: string, config: Config.GatehouseConfig = {}, dataDir = makeTempDir()) =>
  locationTestLayer({ dataDir, directory, config })

const catalog = Effect.gen(function* () {
  const session = yield* makeSession()
  const registry = yield* ToolRegistry.Service
  yield* registry.register({ grep: yield* GrepTool.make })
  const materialized = yield* registry.materialize()
  return (input: unknown) =>
    materialized.settle({
      sessionID: session.id,
      agent: "build",
      assistantMessageID: "msg_1",
      call: { id: "call_1", name: "grep", input },
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
const matchesOf = (settlement: ToolRegistry.Settlement) => settlement.output?.structured as GrepTool.Output

describe("GrepTool", () => {
  it.effect("asks grep for the pattern and groups matching lines by file", () => {
    const { directory } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const settlement = yield* settle({ pattern: "needle" })
        assert.deepStrictEqual(
          asked.map((ask) => [ask.action, ask.resources, ask.save, ask.metadata]),
          [["grep", ["needle"], ["*"], { root: "." }]],
        )
        assert.deepStrictEqual(asked[0]!.source, { type: "tool", messageID: "msg_1", callID: "call_1" })
        assert.strictEqual(
          textOf(settlement),
          [
            "Found 3 matches",
            `${join(directory, "src", "a.ts")}:`,
            "  Line 2: const needle = 1",
            "",
            `${join(directory, "src", "b.js")}:`,
            "  Line 1: needle()",
            "  Line 3: needle(2)",
          ].join("\n"),
        )
        assert.deepStrictEqual(matchesOf(settlement), [
          { path: "src/a.ts", line: 2, text: "const needle = 1" },
          { path: "src/b.js", line: 1, text: "needle()" },
          { path: "src/b.js", line: 3, text: "needle(2)" },
        ])
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("passes path, include and limit to the ask and the search", () => {
    const { directory } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const settlement = yield* settle({ pattern: "needle\\(", path: "src", include: "*.{js,jsx}", limit: 1 })
        assert.deepStrictEqual(asked[0]!.metadata, { root: ".", path: "src", include: "*.{js,jsx}", limit: 1 })
        assert.deepStrictEqual(matchesOf(settlement), [{ path: "src/b.js", line: 1, text: "needle()" }])
        const included = yield* settle({ pattern: "needle", include: "*.ts" })
        assert.deepStrictEqual(
          matchesOf(included).map((match) => match.path),
          ["src/a.ts"],
        )
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("searches only the named file when the path is a file", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      const settlement = yield* settle({ pattern: "needle", path: "src/b.js" })
      assert.deepStrictEqual(
        matchesOf(settlement).map((match) => [match.path, match.line]),
        [
          ["src/b.js", 1],
          ["src/b.js", 3],
        ],
      )
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("answers No files found when nothing matches and names a missing path", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      assert.strictEqual(textOf(yield* settle({ pattern: "haystack" })), "No files found")
      assert.strictEqual(errorOf(yield* settle({ pattern: "needle", path: "nope" })), "Search path not found: nope")
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("treats a pattern spelled like --pre as a pattern and never runs the preprocessor", () => {
    const { directory, sentinel } = fixture()
    writeFileSync(join(directory, "flags.txt"), "a --pre=./pre.sh b\n")
    return Effect.gen(function* () {
      for (const pattern of ["--pre=./pre.sh", "--pre=pre.sh", "-L"]) yield* settle({ pattern })
      assert.deepStrictEqual(matchesOf(yield* settle({ pattern: "--pre=./pre.sh" })), [
        { path: "flags.txt", line: 1, text: "a --pre=./pre.sh b" },
      ])
      yield* settle({ pattern: "needle", include: "--pre=./pre.sh" })
      assert.isFalse(existsSync(sentinel))
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("ignores a RIPGREP_CONFIG_PATH that injects --pre", () => {
    const { base, directory, sentinel } = fixture()
    const config = join(base, "ripgreprc")
    writeFileSync(config, `--pre=${join(directory, "pre.sh")}\n`)
    return Effect.acquireUseRelease(
      Effect.sync(() => {
        const previous = process.env.RIPGREP_CONFIG_PATH
        process.env.RIPGREP_CONFIG_PATH = config
        return previous
      }),
      () =>
        Effect.gen(function* () {
          assert.strictEqual(matchesOf(yield* settle({ pattern: "needle" })).length, 3)
          assert.isFalse(existsSync(sentinel))
        }),
      (previous) =>
        Effect.sync(() => {
          if (previous === undefined) delete process.env.RIPGREP_CONFIG_PATH
          else process.env.RIPGREP_CONFIG_PATH = previous
        }),
    ).pipe(Effect.provide(layer(directory)))
  })

  it.effect("finds nothing outside the Location through links, and refuses a link as the path", () => {
    const { directory, outside } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const settlement = yield* settle({ pattern: "outside" })
        assert.strictEqual(textOf(settlement), "No files found")
        assert.strictEqual(
          errorOf(yield* settle({ pattern: "needle", path: "link-out" })),
          'Path "link-out" resolves outside the location through a symbolic link',
        )
        assert.strictEqual(
          errorOf(yield* settle({ pattern: "needle", path: "file-out.txt" })),
          'Path "file-out.txt" resolves outside the location through a symbolic link',
        )
        assert.strictEqual(
          errorOf(yield* settle({ pattern: "needle", path: join(outside, "secret.txt") })),
          `Search path must be inside the location or a managed tool-output file: ${join(outside, "secret.txt")}`,
        )
        assert.strictEqual(asked.length, 1)
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("searches a managed tool-output file by its absolute path after external_directory", () => {
    const { directory } = fixture()
    const dataDir = makeTempDir()
    return Effect.scoped(
      Effect.gen(function* () {
        const outputs = yield* ToolOutputStore.Service
        mkdirSync(outputs.directory, { recursive: true })
        const file = join(outputs.directory, "tool_0123456789abcdefABCDEFGHIJKL")
        writeFileSync(file, "line one\nthe needle is here\n")
        writeFileSync(join(outputs.directory, "other.txt"), "needle\n")
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const settlement = yield* settle({ pattern: "needle", path: file })
        assert.deepStrictEqual(
          asked.map((ask) => [ask.action, ask.resources]),
          [
            ["external_directory", [`${outputs.directory}/*`]],
            ["grep", ["needle"]],
          ],
        )
        assert.strictEqual(textOf(settlement), `Found 1 matches\n${file}:\n  Line 2: the needle is here`)
        assert.deepStrictEqual(matchesOf(settlement), [{ path: file, line: 2, text: "the needle is here" }])
        assert.strictEqual(
          errorOf(yield* settle({ pattern: "needle", path: join(outputs.directory, "other.txt") })),
          `Search path must be inside the location or a managed tool-output file: ${join(outputs.directory, "other.txt")}`,
        )
        assert.strictEqual(asked.length, 2)
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll), dataDir)))
  })

  it.effect("searches a managed tool-output file without asking under the built-in agent rules", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      mkdirSync(outputs.directory, { recursive: true })
      const file = join(outputs.directory, "tool_0123456789abcdefABCDEFGHIJKM")
      writeFileSync(file, "needle\n")
      assert.deepStrictEqual(matchesOf(yield* settle({ pattern: "needle", path: file })), [
        { path: file, line: 1, text: "needle" },
      ])
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("fails with the reference message for an invalid regex", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      assert.strictEqual(errorOf(yield* settle({ pattern: "(" })), "Unable to grep for (")
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("does not search a path replaced by a link during approval", () => {
    const { directory, outside } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        yield* autoAnswer(() => {
          rmSync(join(directory, "src"), { recursive: true })
          symlinkSync(outside, join(directory, "src"))
          return { reply: "once" }
        })
        assert.strictEqual(
          errorOf(yield* settle({ pattern: "needle", path: "src" })),
          'Path "src" resolves outside the location through a symbolic link',
        )
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("reports denials and feedback", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      assert.strictEqual(errorOf(yield* settle({ pattern: "needle" })), "Permission denied: grep")
    }).pipe(Effect.provide(layer(directory, rules({ action: "grep", resource: "*", effect: "deny" }))))
  })

  it.effect("hands the person's feedback to the model", () => {
    const { directory } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        yield* autoAnswer(() => ({ reply: "reject", message: "search src only" }))
        assert.strictEqual(
          errorOf(yield* settle({ pattern: "needle" })),
          "The user rejected permission to use this specific tool call with the following feedback: search src only",
        )
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("reports names holding newlines and colons exactly and cuts very long lines", () => {
    const { directory } = fixture()
    const odd = "src/odd\nname:1:2.txt"
    writeFileSync(join(directory, odd), `x\n${"long needle ".repeat(400)}\n`)
    return Effect.gen(function* () {
      const [match] = matchesOf(yield* settle({ pattern: "long needle", path: "src" }))
      assert.strictEqual(match!.path, odd)
      assert.strictEqual(match!.line, 2)
      assert.strictEqual(match!.text, `${"long needle ".repeat(400).slice(0, 2000)}...`)
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("never reaches the executor for input that does not decode, and never crashes", () => {
    const { directory } = fixture()
    const decodes = Schema.decodeUnknownExit(Schema.toCodecJson(GrepTool.Input))
    const nearlyValid = fc.record(
      {
        pattern: fc.oneof(fc.string(), fc.constantFrom("needle", "(", "--pre=./pre.sh", "-L"), fc.integer()),
        path: fc.oneof(
          fc.string(),
          fc.constantFrom(".", "src", "src/a.ts", "/", "../x", "link-out"),
          fc.constant(null),
        ),
        include: fc.oneof(fc.string(), fc.constantFrom("*.ts", "{a", "--pre=x")),
        limit: fc.oneof(fc.integer(), fc.double(), fc.string()),
      },
      { requiredKeys: [] },
    )
    return Effect.scoped(
      Effect.gen(function* () {
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
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
                if (exit.value.result.type === "error") assert.notMatch(exit.value.result.value, /^Invalid tool input/u)
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
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })
})
