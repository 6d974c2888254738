import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Effect } from "effect"
import { WriteTool } from "@main/tools/write"
import {
  ASK_ALL,
  errorOf,
  flipping,
  harness,
  neverReachesExecutorUnlessDecoded,
  rule,
  sandbox,
  snapshot,
  structuredOf,
  textOf,
  toolLayer,
  type FileCounts,
} from "./support/fileTools"

const write = (answer?: Parameters<typeof harness>[2]) => harness(WriteTool.name, WriteTool.make, answer)
const BOM = "\uFEFF"

describe("WriteTool", () => {
  it.effect("creates a file and its parents after one edit ask for its resource", () => {
    const box = sandbox()
    const counts: FileCounts = { reads: 0, writes: 0 }
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* write()
        const settled = yield* tool.call({ path: "nested/dir/new.txt", content: "hello\n" })
        assert.strictEqual(textOf(settled), "Created file successfully: nested/dir/new.txt")
        assert.deepStrictEqual(structuredOf(settled), {
          operation: "write",
          target: join(box.directory, "nested", "dir", "new.txt"),
          resource: "nested/dir/new.txt",
          existed: false,
        })
        assert.strictEqual(readFileSync(join(box.directory, "nested", "dir", "new.txt"), "utf8"), "hello\n")
        assert.deepStrictEqual(
          tool.asks.map((ask) => [ask.action, ask.resources, ask.save, ask.source]),
          [["edit", ["nested/dir/new.txt"], ["*"], { type: "tool", messageID: "msg_1", callID: "call_1" }]],
        )
        assert.deepStrictEqual(counts, { reads: 0, writes: 1 })
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL, counts })))
  })

  it.effect("overwrites an existing file and says it wrote it", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "a.txt"), "old")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* write()
        const settled = yield* tool.call({ path: join(box.directory, "a.txt"), content: "new" })
        assert.strictEqual(textOf(settled), "Wrote file successfully: a.txt")
        assert.strictEqual(readFileSync(join(box.directory, "a.txt"), "utf8"), "new")
        assert.strictEqual(tool.asks.length, 0)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("keeps one BOM when the file or the content had one, and strips repeated ones", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "bom.txt"), `${BOM}old`)
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* write()
        yield* tool.call({ path: "bom.txt", content: "new" })
        assert.strictEqual(readFileSync(join(box.directory, "bom.txt"), "utf8"), `${BOM}new`)
        yield* tool.call({ path: "more.txt", content: `${BOM}${BOM}${BOM}text` })
        assert.strictEqual(readFileSync(join(box.directory, "more.txt"), "utf8"), `${BOM}text`)
        yield* tool.call({ path: "plain.txt", content: "text" })
        assert.deepStrictEqual(readFileSync(join(box.directory, "plain.txt")), Buffer.from("text"))
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("asks external_directory then edit for an outside path; a denial of either writes nothing", () => {
    const box = sandbox()
    const file = join(box.outside, "notes.txt")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* write((request) =>
          request.source?.callID === "deny-external" && request.action === "external_directory"
            ? { reply: "reject", message: "not there" }
            : { reply: "once" },
        )
        assert.strictEqual(
          errorOf(yield* tool.call({ path: file, content: "x" }, "deny-external")),
          "The user rejected permission to use this specific tool call with the following feedback: not there",
        )
        assert.isFalse(existsSync(file))
        assert.strictEqual(textOf(yield* tool.call({ path: file, content: "x" })), `Created file successfully: ${file}`)
        assert.deepStrictEqual(
          tool.asks.slice(1).map((ask) => [ask.action, ask.resources]),
          [
            ["external_directory", [`${box.outside}/*`]],
            ["edit", [file]],
          ],
        )
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  it.effect(
    "resolves like LocationMutation: absolute inside asks no external, nested outside anchors at the existing ancestor",
    () => {
      const box = sandbox()
      return Effect.scoped(
        Effect.gen(function* () {
          const tool = yield* write()
          const inside = join(box.directory, "abs.txt")
          // Unknown input fields are dropped by the input schema.
          assert.strictEqual(
            textOf(yield* tool.call({ path: inside, content: "x", kind: "directory", extra: 1 })),
            "Created file successfully: abs.txt",
          )
          const nested = join(box.outside, "new", "deeper", "file.txt")
          assert.strictEqual(
            textOf(yield* tool.call({ path: nested, content: "y" })),
            `Created file successfully: ${nested}`,
          )
          assert.strictEqual(readFileSync(nested, "utf8"), "y")
          assert.deepStrictEqual(
            tool.asks.map((ask) => [ask.action, ask.resources]),
            [
              ["edit", ["abs.txt"]],
              ["external_directory", [`${box.outside}/*`]],
              ["edit", [nested]],
            ],
          )
        }),
      ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
    },
  )

  it.effect("says only Unable to write under a configured deny of edit or of the outside directory", () => {
    const box = sandbox()
    const counts: FileCounts = { reads: 0, writes: 0 }
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* write()
        assert.strictEqual(errorOf(yield* tool.call({ path: "a.txt", content: "x" })), "Unable to write a.txt")
        const outsideFile = join(box.outside, "b.txt")
        assert.strictEqual(
          errorOf(yield* tool.call({ path: outsideFile, content: "x" })),
          `Unable to write ${outsideFile}`,
        )
        assert.deepStrictEqual(readdirSync(box.directory), [])
        assert.deepStrictEqual(readdirSync(box.outside), [])
        assert.strictEqual(counts.writes, 0)
      }),
    ).pipe(
      Effect.provide(
        toolLayer({
          directory: box.directory,
          counts,
          rules: [rule("edit", "a.txt", "deny"), rule("external_directory", `${box.outside}/*`, "deny")],
        }),
      ),
    )
  })

  it.effect("creates nothing outside through a symlinked ancestor, a dangling link or ../", () => {
    const box = sandbox()
    writeFileSync(join(box.outside, "sentinel.txt"), "sentinel")
    symlinkSync(box.outside, join(box.directory, "linked"))
    symlinkSync(join(box.outside, "created.txt"), join(box.directory, "dangling.txt"))
    const before = snapshot(box.outside)
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* write()
        for (const path of [
          "linked/new.txt",
          "linked/deeper/new.txt",
          "dangling.txt",
          "../outside/new.txt",
          "linked/sentinel.txt",
        ])
          assert.strictEqual(errorOf(yield* tool.call({ path, content: "pwned" })), `Unable to write ${path}`)
        assert.deepStrictEqual(snapshot(box.outside), before)
        assert.strictEqual(tool.asks.length, 0)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  it.effect("writes nothing outside when a directory is swapped for a link while the ask is open", () => {
    const box = sandbox()
    mkdirSync(join(box.directory, "sub"))
    writeFileSync(join(box.outside, "file.txt"), "outside")
    const before = snapshot(box.outside)
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* write(() => {
          // What a concurrent shell could do between resolution and the write.
          renameSync(join(box.directory, "sub"), join(box.directory, "sub-moved"))
          symlinkSync(box.outside, join(box.directory, "sub"))
          return { reply: "once" }
        })
        assert.strictEqual(
          errorOf(yield* tool.call({ path: "sub/file.txt", content: "pwned" })),
          "Unable to write sub/file.txt",
        )
        assert.deepStrictEqual(snapshot(box.outside), before)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  it.effect("replaces a hard-linked file without changing the other name's content", () => {
    const box = sandbox()
    writeFileSync(join(box.outside, "shared.txt"), "outside")
    linkSync(join(box.outside, "shared.txt"), join(box.directory, "hl.txt"))
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* write()
        assert.strictEqual(
          textOf(yield* tool.call({ path: "hl.txt", content: "inside" })),
          "Wrote file successfully: hl.txt",
        )
        assert.strictEqual(readFileSync(join(box.outside, "shared.txt"), "utf8"), "outside")
        assert.strictEqual(readFileSync(join(box.directory, "hl.txt"), "utf8"), "inside")
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("fails as Unable to write for a directory in the file's place", () => {
    const box = sandbox()
    mkdirSync(join(box.directory, "dir"))
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* write()
        assert.strictEqual(errorOf(yield* tool.call({ path: "dir", content: "x" })), "Unable to write dir")
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  // Only the Linux implementation anchors by file descriptor; elsewhere a narrow race remains.
  it.effect.runIf(process.platform === "linux")(
    "writes nothing outside while a directory flips to a link to the outside (100 attempts)",
    () => {
      const box = sandbox()
      mkdirSync(join(box.directory, "sub"))
      writeFileSync(join(box.outside, "file.txt"), "outside")
      const before = snapshot(box.outside)
      return Effect.scoped(
        Effect.gen(function* () {
          const tool = yield* write()
          yield* flipping(box.directory, "sub", box.outside)
          for (let attempt = 0; attempt < 100; attempt++) {
            yield* Effect.exit(tool.call({ path: "sub/file.txt", content: `pwned ${attempt}` }))
            yield* Effect.exit(tool.call({ path: `sub/new-${attempt}/file.txt`, content: "pwned" }))
          }
          assert.deepStrictEqual(snapshot(box.outside), before)
        }),
      ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
    },
  )

  it.effect("never reaches the executor for undecodable input and never dies (property)", () => {
    const box = sandbox()
    const counts: FileCounts = { reads: 0, writes: 0 }
    return Effect.scoped(
      neverReachesExecutorUnlessDecoded(
        WriteTool.Input,
        { path: fc.string(), content: fc.string() },
        write(() => ({ reply: "reject", message: "no" })),
        counts,
      ),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL, counts })))
  })
})
