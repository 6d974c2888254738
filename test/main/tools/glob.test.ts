import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import fc from "fast-check"
import type { Config } from "@core/config/Config"
import { ToolRegistry } from "@core/tool/ToolRegistry"
import { GlobTool } from "@main/tools/glob"
import { autoAnswer, locationTestLayer, makeSession } from "../../support/location"
import { makeTempDir } from "../../support/temp"

// Layout (B = a fresh temp dir, R = B/project is the Location):
//   B/elsewhere/secret.ts
//   R/README.md  R/.env.ts  R/src/a.ts  R/src/b.tsx  R/src/deep/c.ts  R/.git/hooks.ts  R/logo.png
//   R/link-out -> B/elsewhere   R/file-out.ts -> B/elsewhere/secret.ts
function fixture() {
  const base = makeTempDir()
  const directory = join(base, "project")
  const outside = join(base, "elsewhere")
  for (const dir of [join(directory, "src", "deep"), join(directory, ".git"), outside])
    mkdirSync(dir, { recursive: true })
  for (const file of ["README.md", ".env.ts", "src/a.ts", "src/b.tsx", "src/deep/c.ts", ".git/hooks.ts", "logo.png"])
    writeFileSync(join(directory, file), "x\n")
  writeFileSync(join(outside, "secret.ts"), "secret\n")
  symlinkSync(outside, join(directory, "link-out"))
  symlinkSync(join(outside, "secret.ts"), join(directory, "file-out.ts"))
  return { base, directory, outside }
}

type Rule = { readonly action: string; readonly resource: string; readonly effect: "allow" | "deny" | "ask" }
const rules = (...list: Rule[]): Config.GatehouseConfig => ({ agents: { build: list } })
const askAll: Rule = { action: "*", resource: "*", effect: "ask" }

const layer = (directory: string, config: Config.GatehouseConfig = {}) =>
  locationTestLayer({ dataDir: makeTempDir(), directory, config })

const catalog = Effect.gen(function* () {
  const session = yield* makeSession()
  const registry = yield* ToolRegistry.Service
  yield* registry.register({ glob: yield* GlobTool.make })
  const materialized = yield* registry.materialize()
  return (input: unknown) =>
    materialized.settle({
      sessionID: session.id,
      agent: "build",
      assistantMessageID: "msg_1",
      call: { id: "call_1", name: "glob", input },
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
const entriesOf = (settlement: ToolRegistry.Settlement) => settlement.output?.structured as GlobTool.Output
const pathsOf = (settlement: ToolRegistry.Settlement) => entriesOf(settlement).map((entry) => entry.path)

describe("GlobTool", () => {
  it.effect("asks glob for the pattern and lists matching files as absolute paths in path order", () => {
    const { directory } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const settlement = yield* settle({ pattern: "**/*.ts" })
        assert.deepStrictEqual(
          asked.map((ask) => [ask.action, ask.resources, ask.save, ask.metadata]),
          [["glob", ["**/*.ts"], ["*"], { root: "." }]],
        )
        assert.deepStrictEqual(asked[0]!.source, { type: "tool", messageID: "msg_1", callID: "call_1" })
        assert.strictEqual(
          textOf(settlement),
          [".env.ts", "src/a.ts", "src/deep/c.ts"].map((file) => join(directory, file)).join("\n"),
        )
        assert.deepStrictEqual(entriesOf(settlement), [
          { path: ".env.ts", type: "file", mime: "text/typescript" },
          { path: "src/a.ts", type: "file", mime: "text/typescript" },
          { path: "src/deep/c.ts", type: "file", mime: "text/typescript" },
        ])
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("narrows the search to a directory and keeps entries relative to the Location", () => {
    const { directory } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const settlement = yield* settle({ pattern: "*.ts", path: "./src/", limit: 5 })
        assert.deepStrictEqual(asked[0]!.metadata, { root: "src", path: "./src/", limit: 5 })
        assert.deepStrictEqual(pathsOf(settlement), ["src/a.ts", "src/deep/c.ts"])
        // Globs match relative to the search directory.
        assert.deepStrictEqual(pathsOf(yield* settle({ pattern: "deep/*", path: "src" })), ["src/deep/c.ts"])
        assert.deepStrictEqual(pathsOf(yield* settle({ pattern: "*", path: join(directory, "src", "deep") })), [
          "src/deep/c.ts",
        ])
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("keeps the first entries in path order up to the limit", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      assert.deepStrictEqual(pathsOf(yield* settle({ pattern: "*", limit: 2 })), [".env.ts", "README.md"])
      assert.deepStrictEqual(pathsOf(yield* settle({ pattern: "*" })), [
        ".env.ts",
        "README.md",
        "logo.png",
        "src/a.ts",
        "src/b.tsx",
        "src/deep/c.ts",
      ])
      assert.deepStrictEqual(
        entriesOf(yield* settle({ pattern: "*.{md,png}" })).map((entry) => entry.mime),
        ["text/markdown", "image/png"],
      )
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("answers No files found when nothing matches", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      const settlement = yield* settle({ pattern: "*.rs" })
      assert.strictEqual(textOf(settlement), "No files found")
      assert.deepStrictEqual(entriesOf(settlement), [])
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("never lists anything outside the Location, through links or climbing globs", () => {
    const { directory, outside } = fixture()
    return Effect.gen(function* () {
      for (const pattern of ["**", "../**", "../elsewhere/*", `${outside}/*`, "link-out/*", "**/secret.ts"]) {
        const paths = pathsOf(yield* settle({ pattern }))
        assert.isFalse(
          paths.some((path) => path.includes("secret") || path.startsWith("..")),
          `${pattern}: ${paths.join(", ")}`,
        )
      }
      assert.strictEqual(
        errorOf(yield* settle({ pattern: "*", path: "link-out" })),
        'Path "link-out" resolves outside the location through a symbolic link',
      )
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("refuses a search directory outside the Location before asking anything", () => {
    const { directory, outside } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        assert.strictEqual(
          errorOf(yield* settle({ pattern: "*", path: outside })),
          `Search path must be inside the location: ${outside}`,
        )
        assert.strictEqual(
          errorOf(yield* settle({ pattern: "*", path: "../elsewhere" })),
          'Relative path "../elsewhere" leaves the location',
        )
        assert.strictEqual(asked.length, 0)
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("fails with the reference message for a bad glob or a missing directory", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      assert.strictEqual(errorOf(yield* settle({ pattern: "{a" })), "Unable to find files matching {a")
      assert.strictEqual(errorOf(yield* settle({ pattern: "*", path: "missing" })), "Unable to find files matching *")
      assert.strictEqual(errorOf(yield* settle({ pattern: "*", path: "README.md" })), "Unable to find files matching *")
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("does not search a directory replaced by a link during approval", () => {
    const { directory, outside } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        yield* autoAnswer(() => {
          rmSync(join(directory, "src"), { recursive: true })
          symlinkSync(outside, join(directory, "src"))
          return { reply: "once" }
        })
        assert.strictEqual(
          errorOf(yield* settle({ pattern: "*", path: "src" })),
          'Path "src" resolves outside the location through a symbolic link',
        )
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("reports denials and feedback", () => {
    const { directory } = fixture()
    return Effect.gen(function* () {
      assert.strictEqual(errorOf(yield* settle({ pattern: "*" })), "Permission denied: glob")
    }).pipe(Effect.provide(layer(directory, rules({ action: "glob", resource: "*", effect: "deny" }))))
  })

  it.effect("hands the person's feedback to the model", () => {
    const { directory } = fixture()
    return Effect.scoped(
      Effect.gen(function* () {
        yield* autoAnswer(() => ({ reply: "reject", message: "look in src only" }))
        assert.strictEqual(
          errorOf(yield* settle({ pattern: "*" })),
          "The user rejected permission to use this specific tool call with the following feedback: look in src only",
        )
      }),
    ).pipe(Effect.provide(layer(directory, rules(askAll))))
  })

  it.effect("lists names holding newlines and colons exactly", () => {
    const { directory } = fixture()
    const odd = "src/odd\nname:1:2.txt"
    writeFileSync(join(directory, odd), "x")
    return Effect.gen(function* () {
      assert.deepStrictEqual(pathsOf(yield* settle({ pattern: "*.txt" })), [odd])
    }).pipe(Effect.provide(layer(directory)))
  })

  it.effect("never reaches the executor for input that does not decode, and never crashes", () => {
    const { directory } = fixture()
    const decodes = Schema.decodeUnknownExit(Schema.toCodecJson(GlobTool.Input))
    const nearlyValid = fc.record(
      {
        pattern: fc.oneof(fc.string(), fc.constantFrom("*", "**/*.ts", "../**", "--pre=x", "{a"), fc.integer()),
        path: fc.oneof(fc.string(), fc.constantFrom(".", "src", "/", "../x", "link-out"), fc.constant(null)),
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
