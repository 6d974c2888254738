import { execFileSync } from "node:child_process"
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs"
import { constants } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Effect, Layer } from "effect"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { EditTool } from "@main/tools/edit"
import { FileMutation } from "@main/tools/support/FileMutation"
import { locationTestLayer } from "../../support/location"
import { makeTempDir } from "../../support/temp"
import {
  ASK_ALL,
  defectOf,
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

const edit = (answer?: Parameters<typeof harness>[2]) => harness(EditTool.name, EditTool.make, answer)
const BOM = "\uFEFF"

describe("EditTool", () => {
  it.effect("asks edit once for the resource, writes once, and reports the diff", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "hello.txt"), "hello\nworld\n")
    const counts: FileCounts = { reads: 0, writes: 0 }
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* edit()
        const settled = yield* tool.call({ path: "hello.txt", oldString: "world", newString: "there" })
        assert.deepStrictEqual(
          tool.asks.map((ask) => [ask.action, ask.resources, ask.save]),
          [["edit", ["hello.txt"], ["*"]]],
        )
        assert.deepStrictEqual(counts, { reads: 1, writes: 1 })
        assert.strictEqual(readFileSync(join(box.directory, "hello.txt"), "utf8"), "hello\nthere\n")
        const output = structuredOf(settled) as EditTool.Output
        assert.strictEqual(output.replacements, 1)
        assert.deepStrictEqual(
          { ...output.files[0], patch: undefined },
          { file: "hello.txt", patch: undefined, status: "modified", additions: 1, deletions: 1 },
        )
        assert.include(output.files[0]!.patch, "--- hello.txt\n+++ hello.txt\n")
        assert.include(output.files[0]!.patch, "-world\n+there\n")
        assert.strictEqual(
          textOf(settled),
          "Edited file successfully: hello.txt\nReplacements: 1\n```diff\n-world\n+there\n```",
        )
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL, counts })))
  })

  it.effect("asks external_directory then edit outside; a denial of either reads and writes nothing", () => {
    const box = sandbox()
    const file = join(box.outside, "notes.txt")
    writeFileSync(file, "a\n")
    const counts: FileCounts = { reads: 0, writes: 0 }
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* edit()
        assert.strictEqual(
          errorOf(yield* tool.call({ path: file, oldString: "a", newString: "b" })),
          `Unable to edit ${file}`,
        )
        assert.deepStrictEqual(
          tool.asks.map((ask) => [ask.action, ask.resources]),
          [["external_directory", [`${box.outside}/*`]]],
        )
        assert.deepStrictEqual(counts, { reads: 0, writes: 0 })
        assert.strictEqual(readFileSync(file, "utf8"), "a\n")
      }),
    ).pipe(
      Effect.provide(toolLayer({ directory: box.directory, counts, rules: [...ASK_ALL, rule("edit", "*", "deny")] })),
    )
  })

  it.effect("asks external_directory before edit, and a denied external_directory stops before edit", () => {
    const box = sandbox()
    const file = join(box.outside, "notes.txt")
    writeFileSync(file, "a\n")
    const counts: FileCounts = { reads: 0, writes: 0 }
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* edit()
        assert.strictEqual(
          errorOf(yield* tool.call({ path: file, oldString: "a", newString: "b" })),
          `Unable to edit ${file}`,
        )
        assert.deepStrictEqual(counts, { reads: 0, writes: 0 })
        assert.strictEqual(tool.asks.length, 0)
      }),
    ).pipe(
      Effect.provide(
        toolLayer({
          directory: box.directory,
          counts,
          rules: [rule("external_directory", `${box.outside}/*`, "deny")],
        }),
      ),
    )
  })

  it.effect(
    "gives a denied edit the same answer whether or not oldString would match, without opening the file",
    () => {
      const box = sandbox()
      writeFileSync(join(box.directory, "a.txt"), "present\n")
      // A FIFO holding one canary byte: reading the target would consume it (or block).
      const fifo = join(box.directory, "pipe")
      execFileSync("mkfifo", [fifo])
      const holder = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK)
      writeSync(holder, "!")
      return Effect.scoped(
        Effect.gen(function* () {
          const tool = yield* edit()
          const matching = yield* tool.call({ path: "a.txt", oldString: "present", newString: "x" })
          const missing = yield* tool.call({ path: "a.txt", oldString: "absent", newString: "x" })
          assert.deepStrictEqual(matching.result, { type: "error", value: "Unable to edit a.txt" })
          assert.deepStrictEqual(missing.result, matching.result)
          assert.strictEqual(
            errorOf(yield* tool.call({ path: "pipe", oldString: "!", newString: "?" })),
            "Unable to edit pipe",
          )
          const buffer = Buffer.alloc(4)
          assert.strictEqual(readSync(holder, buffer, 0, 4, null), 1)
          assert.strictEqual(buffer.toString("utf8", 0, 1), "!")
        }).pipe(Effect.ensuring(Effect.sync(() => closeSync(holder)))),
      ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: [rule("edit", "*", "deny")] })))
    },
  )

  it.effect("refuses identical and empty strings before asking, and missing or ambiguous matches after", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "a.txt"), "x y x z x\n")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* edit()
        const call = (oldString: string, newString: string, replaceAll?: boolean) =>
          tool.call({ path: "a.txt", oldString, newString, ...(replaceAll === undefined ? {} : { replaceAll }) })
        assert.strictEqual(
          errorOf(yield* call("x", "x")),
          "No changes to apply: oldString and newString are identical.",
        )
        assert.strictEqual(
          errorOf(yield* call("", "x")),
          "oldString must not be empty. Use write to create or overwrite a file.",
        )
        assert.strictEqual(tool.asks.length, 0)
        assert.strictEqual(
          errorOf(yield* call("w", "v")),
          "Could not find oldString in the file. It must match exactly, including whitespace and indentation.",
        )
        assert.strictEqual(
          errorOf(yield* call("x", "v")),
          "Found multiple exact matches for oldString. Provide more surrounding context or set replaceAll to true.",
        )
        const settled = yield* call("x", "v", true)
        assert.strictEqual((structuredOf(settled) as EditTool.Output).replacements, 3)
        assert.strictEqual(readFileSync(join(box.directory, "a.txt"), "utf8"), "v y v z v\n")
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  it.effect("keeps the BOM and CRLF line endings when given LF strings", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "win.txt"), `${BOM}first\r\nsecond\r\nthird\r\n`)
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* edit()
        const settled = yield* tool.call({ path: "win.txt", oldString: "first\nsecond", newString: "one\ntwo\nthree" })
        assert.strictEqual(
          readFileSync(join(box.directory, "win.txt"), "utf8"),
          `${BOM}one\r\ntwo\r\nthree\r\nthird\r\n`,
        )
        assert.strictEqual((structuredOf(settled) as EditTool.Output).files[0]!.additions, 3)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("replaces literally: $&, $1, $$ and $' are inserted as typed", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "price.txt"), "cost: AMOUNT\n")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* edit()
        yield* tool.call({ path: "price.txt", oldString: "AMOUNT", newString: "$& $1 $$ $' $`" })
        assert.strictEqual(readFileSync(join(box.directory, "price.txt"), "utf8"), "cost: $& $1 $$ $' $`\n")
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("refuses the write when the file changed after it was read, keeping the foreign content", () => {
    const box = sandbox()
    const file = join(box.directory, "race.txt")
    writeFileSync(file, "base\n")
    // The real FileMutation; another writer changes the file right after the tool read it.
    const racing = Layer.effect(
      FileMutation.Service,
      Effect.map(FileMutation.make, (real) =>
        FileMutation.Service.of({
          ...real,
          read: (target) =>
            real.read(target).pipe(Effect.tap(() => Effect.sync(() => writeFileSync(file, "foreign base\n")))),
        }),
      ),
    )
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* edit()
        assert.strictEqual(
          errorOf(yield* tool.call({ path: "race.txt", oldString: "base", newString: "mine" })),
          "File changed after permission approval. Read it again before editing.",
        )
        assert.strictEqual(readFileSync(file, "utf8"), "foreign base\n")
      }),
    ).pipe(
      Effect.provide(
        Layer.merge(locationTestLayer({ dataDir: makeTempDir(), directory: box.directory, config: {} }), racing),
      ),
    )
  })

  it.effect("edits what the file holds after approval, never what it held when the ask was made", () => {
    const box = sandbox()
    const file = join(box.directory, "a.txt")
    writeFileSync(file, "alpha\n")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* edit(() => {
          writeFileSync(file, "beta\n")
          return { reply: "once" }
        })
        assert.strictEqual(
          errorOf(yield* tool.call({ path: "a.txt", oldString: "alpha", newString: "gamma" })),
          "Could not find oldString in the file. It must match exactly, including whitespace and indentation.",
        )
        assert.strictEqual(readFileSync(file, "utf8"), "beta\n")
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  it.effect("touches nothing outside through links, ../ or a directory swapped during the ask", () => {
    const box = sandbox()
    writeFileSync(join(box.outside, "secret.txt"), "secret\n")
    symlinkSync(box.outside, join(box.directory, "linked"))
    symlinkSync(join(box.outside, "secret.txt"), join(box.directory, "link.txt"))
    mkdirSync(join(box.directory, "sub"))
    writeFileSync(join(box.directory, "sub", "secret.txt"), "secret\n")
    const before = snapshot(box.outside)
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* edit(() => {
          renameSync(join(box.directory, "sub"), join(box.directory, "sub-moved"))
          symlinkSync(box.outside, join(box.directory, "sub"))
          return { reply: "once" }
        })
        for (const path of ["linked/secret.txt", "link.txt", "../outside/secret.txt"])
          assert.strictEqual(
            errorOf(yield* tool.call({ path, oldString: "secret", newString: "pwned" })),
            `Unable to edit ${path}`,
          )
        assert.strictEqual(tool.asks.length, 0)
        assert.strictEqual(
          errorOf(yield* tool.call({ path: "sub/secret.txt", oldString: "secret", newString: "pwned" })),
          "Unable to edit sub/secret.txt",
        )
        assert.deepStrictEqual(snapshot(box.outside), before)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  it.effect("refuses a file that is not UTF-8 instead of corrupting it", () => {
    const box = sandbox()
    const latin1 = Buffer.from("caf\xe9 au lait\n", "latin1")
    writeFileSync(join(box.directory, "latin1.txt"), latin1)
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* edit()
        assert.strictEqual(
          errorOf(yield* tool.call({ path: "latin1.txt", oldString: "au", newString: "sans" })),
          "Unable to edit latin1.txt: file is not valid UTF-8",
        )
        assert.deepStrictEqual(readFileSync(join(box.directory, "latin1.txt")), latin1)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("previews at most 6 lines of each side, each cut at 240 characters", () => {
    const box = sandbox()
    const old = Array.from({ length: 8 }, (_, index) => `old ${index}`).join("\n")
    writeFileSync(join(box.directory, "big.txt"), `${old}\n`)
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* edit()
        const long = "n".repeat(300)
        const settled = yield* tool.call({ path: "big.txt", oldString: old, newString: long })
        assert.strictEqual(
          textOf(settled),
          [
            "Edited file successfully: big.txt",
            "Replacements: 1",
            "```diff",
            ...Array.from({ length: 6 }, (_, index) => `-old ${index}`),
            "-...",
            `+${"n".repeat(240)}...`,
            "```",
          ].join("\n"),
        )
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("shows the model a person's rejection feedback, and lets a plain rejection stop the session", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "a.txt"), "a\n")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* edit((request) =>
          request.source?.callID === "plain" ? { reply: "reject" } : { reply: "reject", message: "keep it" },
        )
        assert.strictEqual(
          errorOf(yield* tool.call({ path: "a.txt", oldString: "a", newString: "b" })),
          "The user rejected permission to use this specific tool call with the following feedback: keep it",
        )
        assert.instanceOf(
          yield* defectOf(tool.call({ path: "a.txt", oldString: "a", newString: "b" }, "plain")),
          PermissionV2.DeclinedError,
        )
        assert.strictEqual(readFileSync(join(box.directory, "a.txt"), "utf8"), "a\n")
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  // Only the Linux implementation anchors by file descriptor; elsewhere a narrow race remains.
  it.effect.runIf(process.platform === "linux")(
    "edits nothing outside while a directory flips to a link to the outside (100 attempts)",
    () => {
      const box = sandbox()
      mkdirSync(join(box.directory, "sub"))
      writeFileSync(join(box.directory, "sub", "file.txt"), "target 0\n")
      writeFileSync(join(box.outside, "file.txt"), "target 0\n")
      const before = snapshot(box.outside)
      return Effect.scoped(
        Effect.gen(function* () {
          const tool = yield* edit()
          yield* flipping(box.directory, "sub", box.outside)
          let edited = 0
          for (let attempt = 0; attempt < 100; attempt++) {
            const settled = yield* Effect.exit(
              tool.call({
                path: "sub/file.txt",
                oldString: `target ${edited}`,
                newString: `target ${edited + 1}`,
              }),
            )
            if (settled._tag === "Success" && settled.value.result.type !== "error") edited++
          }
          assert.deepStrictEqual(snapshot(box.outside), before)
        }),
      ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
    },
  )

  it.effect("never reaches the executor for undecodable input and never dies (property)", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "a.txt"), "a\n")
    const counts: FileCounts = { reads: 0, writes: 0 }
    return Effect.scoped(
      neverReachesExecutorUnlessDecoded(
        EditTool.Input,
        { path: fc.string(), oldString: fc.string(), newString: fc.string(), replaceAll: fc.boolean() },
        edit(() => ({ reply: "reject", message: "no" })),
        counts,
      ),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL, counts })))
  })
})
