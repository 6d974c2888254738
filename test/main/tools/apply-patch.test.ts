import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { ApplyPatchTool } from "@main/tools/apply-patch"
import { FileMutation } from "@main/tools/support/FileMutation"
import { locationTestLayer } from "../../support/location"
import { makeTempDir } from "../../support/temp"
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

const patch = (answer?: Parameters<typeof harness>[2]) => harness(ApplyPatchTool.name, ApplyPatchTool.make, answer)
const envelope = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n")
const BOM = "\uFEFF"

describe("ApplyPatchTool", () => {
  it.effect("adds, updates and deletes after one edit ask for all three, reading nothing before it", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "update.txt"), "keep\nold\n")
    writeFileSync(join(box.directory, "remove.txt"), "bye\n")
    const counts: FileCounts = { reads: 0, writes: 0 }
    const readsWhenAsked: number[] = []
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* patch(() => {
          readsWhenAsked.push(counts.reads)
          return { reply: "once" }
        })
        const settled = yield* tool.call({
          patchText: envelope(
            "*** Add File: nested/new.txt",
            "+fresh",
            "*** Update File: update.txt",
            "@@",
            " keep",
            "-old",
            "+new",
            "*** Delete File: remove.txt",
          ),
        })
        assert.strictEqual(textOf(settled), "Applied patch sequentially:\nA nested/new.txt\nM update.txt\nD remove.txt")
        assert.deepStrictEqual(
          tool.asks.map((ask) => [ask.action, ask.resources, ask.save]),
          [["edit", ["nested/new.txt", "update.txt", "remove.txt"], ["*"]]],
        )
        assert.deepStrictEqual(readsWhenAsked, [0])
        assert.strictEqual(readFileSync(join(box.directory, "nested", "new.txt"), "utf8"), "fresh\n")
        assert.strictEqual(readFileSync(join(box.directory, "update.txt"), "utf8"), "keep\nnew\n")
        assert.isFalse(existsSync(join(box.directory, "remove.txt")))
        const output = structuredOf(settled) as ApplyPatchTool.Output
        assert.deepStrictEqual(output.applied, [
          { type: "add", resource: "nested/new.txt", target: join(box.directory, "nested", "new.txt") },
          { type: "update", resource: "update.txt", target: join(box.directory, "update.txt") },
          { type: "delete", resource: "remove.txt", target: join(box.directory, "remove.txt") },
        ])
        assert.deepStrictEqual(
          output.files.map((file) => [file.file, file.status, file.additions, file.deletions]),
          [
            ["nested/new.txt", "added", 1, 0],
            ["update.txt", "modified", 1, 1],
            ["remove.txt", "deleted", 0, 1],
          ],
        )
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL, counts })))
  })

  it.effect("refuses blank, malformed, empty and moving patches before resolving, asking or writing", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "a.txt"), "a\n")
    const counts: FileCounts = { reads: 0, writes: 0 }
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* patch()
        assert.strictEqual(errorOf(yield* tool.call({ patchText: "  \n" })), "patchText is required")
        assert.strictEqual(
          errorOf(yield* tool.call({ patchText: "*** Add File: x\n+1" })),
          "apply_patch verification failed: Invalid patch format: missing Begin/End markers",
        )
        assert.strictEqual(
          errorOf(yield* tool.call({ patchText: envelope("*** Update File: a.txt", "oops") })),
          "apply_patch verification failed: Invalid update file line: oops",
        )
        assert.strictEqual(errorOf(yield* tool.call({ patchText: envelope() })), "patch rejected: empty patch")
        assert.strictEqual(
          errorOf(
            yield* tool.call({
              patchText: envelope(
                "*** Add File: b.txt",
                "+b",
                "*** Update File: a.txt",
                "*** Move to: c.txt",
                "@@",
                "-a",
                "+c",
              ),
            }),
          ),
          "apply_patch moves are not supported yet",
        )
        assert.strictEqual(tool.asks.length, 0)
        assert.deepStrictEqual(counts, { reads: 0, writes: 0 })
        assert.deepStrictEqual(readdirSync(box.directory), ["a.txt"])
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL, counts })))
  })

  it.effect("asks external_directory once for two files in one outside directory", () => {
    const box = sandbox()
    mkdirSync(join(box.outside, "other"))
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* patch()
        const first = join(box.outside, "one.txt")
        const second = join(box.outside, "two.txt")
        const third = join(box.outside, "other", "three.txt")
        const settled = yield* tool.call({
          patchText: envelope(
            `*** Add File: ${first}`,
            "+1",
            `*** Add File: ${second}`,
            "+2",
            `*** Add File: ${third}`,
            "+3",
            "*** Add File: inside.txt",
            "+4",
          ),
        })
        assert.strictEqual(
          textOf(settled),
          `Applied patch sequentially:\nA ${first}\nA ${second}\nA ${third}\nA inside.txt`,
        )
        assert.deepStrictEqual(
          tool.asks.map((ask) => [ask.action, ask.resources]),
          [
            ["external_directory", [`${box.outside}/*`]],
            ["external_directory", [`${box.outside}/other/*`]],
            ["edit", [first, second, third, "inside.txt"]],
          ],
        )
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  it.effect("aborts before writing anything when a later update cannot be prepared", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "present.txt"), "x\n")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* patch()
        assert.strictEqual(
          errorOf(
            yield* tool.call({
              patchText: envelope("*** Add File: added.txt", "+new", "*** Update File: missing.txt", "@@", "-a", "+b"),
            }),
          ),
          "Unable to apply patch at missing.txt",
        )
        assert.strictEqual(
          errorOf(
            yield* tool.call({
              patchText: envelope(
                "*** Add File: added.txt",
                "+new",
                "*** Update File: present.txt",
                "@@",
                "-nope",
                "+b",
              ),
            }),
          ),
          "Unable to apply patch at present.txt: Failed to find expected lines in present.txt:\nnope",
        )
        assert.deepStrictEqual(readdirSync(box.directory), ["present.txt"])
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("refuses to add over an existing file, or one created while the ask was open, keeping it", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "exists.txt"), "original\n")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* patch((request) => {
          if (request.source?.callID === "racing") writeFileSync(join(box.directory, "late.txt"), "theirs\n")
          return { reply: "once" }
        })
        assert.strictEqual(
          errorOf(yield* tool.call({ patchText: envelope("*** Add File: exists.txt", "+mine") })),
          "Unable to apply patch at exists.txt",
        )
        assert.strictEqual(readFileSync(join(box.directory, "exists.txt"), "utf8"), "original\n")
        assert.strictEqual(
          errorOf(yield* tool.call({ patchText: envelope("*** Add File: late.txt", "+mine") }, "racing")),
          "Unable to apply patch at late.txt",
        )
        assert.strictEqual(readFileSync(join(box.directory, "late.txt"), "utf8"), "theirs\n")
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  it.effect("lists what was applied when a later hunk fails at commit, without rolling back", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "taken.txt"), "taken\n")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* patch()
        assert.strictEqual(
          errorOf(
            yield* tool.call({
              patchText: envelope(
                "*** Add File: first.txt",
                "+1",
                "*** Add File: second.txt",
                "+2",
                "*** Add File: taken.txt",
                "+3",
                "*** Add File: fourth.txt",
                "+4",
              ),
            }),
          ),
          "Patch partially applied before failing at taken.txt. Applied: first.txt, second.txt",
        )
        assert.deepStrictEqual(readdirSync(box.directory).sort(), ["first.txt", "second.txt", "taken.txt"])
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("refuses an update when the file changed after it was read for the patch", () => {
    const box = sandbox()
    const file = join(box.directory, "a.txt")
    writeFileSync(file, "a\n")
    // The real FileMutation; another writer changes the file right after the tool read it.
    const racing = Layer.effect(
      FileMutation.Service,
      Effect.map(FileMutation.make, (real) =>
        FileMutation.Service.of({
          ...real,
          read: (target) =>
            real.read(target).pipe(Effect.tap(() => Effect.sync(() => writeFileSync(file, "theirs\n")))),
        }),
      ),
    )
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* patch()
        assert.strictEqual(
          errorOf(
            yield* tool.call({
              patchText: envelope("*** Add File: b.txt", "+b", "*** Update File: a.txt", "@@", "-a", "+mine"),
            }),
          ),
          "Patch partially applied before failing at a.txt. Applied: b.txt",
        )
        assert.strictEqual(readFileSync(file, "utf8"), "theirs\n")
      }),
    ).pipe(
      Effect.provide(
        Layer.merge(locationTestLayer({ dataDir: makeTempDir(), directory: box.directory, config: {} }), racing),
      ),
    )
  })

  it.effect("chains hunks on the same file and keeps its BOM and CRLF line endings", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "win.txt"), `${BOM}one\r\ntwo\r\nthree\r\n`)
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* patch()
        const settled = yield* tool.call({
          patchText: envelope(
            "*** Update File: win.txt",
            "@@",
            "-two",
            "+TWO",
            "*** Update File: win.txt",
            "@@",
            " TWO",
            "-three",
            "+3",
          ),
        })
        assert.strictEqual(textOf(settled), "Applied patch sequentially:\nM win.txt\nM win.txt")
        assert.strictEqual(readFileSync(join(box.directory, "win.txt"), "utf8"), `${BOM}one\r\nTWO\r\n3\r\n`)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("refuses to update a file that is not UTF-8", () => {
    const box = sandbox()
    const bytes = Buffer.from("caf\xe9\n", "latin1")
    writeFileSync(join(box.directory, "latin1.txt"), bytes)
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* patch()
        assert.strictEqual(
          errorOf(yield* tool.call({ patchText: envelope("*** Update File: latin1.txt", "@@", "-x", "+y") })),
          "Unable to apply patch at latin1.txt: file is not valid UTF-8",
        )
        assert.deepStrictEqual(readFileSync(join(box.directory, "latin1.txt")), bytes)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("creates nothing outside through links, ../ or a directory swapped during the ask", () => {
    const box = sandbox()
    writeFileSync(join(box.outside, "sentinel.txt"), "sentinel\n")
    symlinkSync(box.outside, join(box.directory, "linked"))
    symlinkSync(join(box.outside, "dangling-target.txt"), join(box.directory, "dangling.txt"))
    mkdirSync(join(box.directory, "sub"))
    const before = snapshot(box.outside)
    return Effect.scoped(
      Effect.gen(function* () {
        let swapped = false
        const tool = yield* patch(() => {
          if (!swapped) {
            renameSync(join(box.directory, "sub"), join(box.directory, "sub-moved"))
            symlinkSync(box.outside, join(box.directory, "sub"))
            swapped = true
          }
          return { reply: "once" }
        })
        for (const path of ["linked/new.txt", "linked/deep/new.txt", "../outside/new.txt", "linked/sentinel.txt"])
          assert.strictEqual(
            errorOf(yield* tool.call({ patchText: envelope(`*** Add File: ${path}`, "+pwned") })),
            `Unable to apply patch at ${path}`,
          )
        assert.strictEqual(
          errorOf(yield* tool.call({ patchText: envelope("*** Delete File: linked/sentinel.txt") })),
          "Unable to apply patch at linked/sentinel.txt",
        )
        assert.strictEqual(tool.asks.length, 0)
        assert.strictEqual(
          errorOf(yield* tool.call({ patchText: envelope("*** Add File: dangling.txt", "+pwned") })),
          "Unable to apply patch at dangling.txt",
        )
        assert.strictEqual(
          errorOf(yield* tool.call({ patchText: envelope("*** Add File: sub/new.txt", "+pwned") })),
          "Unable to apply patch at sub/new.txt",
        )
        assert.deepStrictEqual(snapshot(box.outside), before)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  it.effect("maps a denial to Unable to apply patch at patch, and shows rejection feedback", () => {
    const box = sandbox()
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* patch(() => ({ reply: "reject", message: "use smaller patches" }))
        assert.strictEqual(
          errorOf(yield* tool.call({ patchText: envelope("*** Add File: denied.txt", "+x") })),
          "Unable to apply patch at patch",
        )
        assert.strictEqual(
          errorOf(yield* tool.call({ patchText: envelope("*** Add File: asked.txt", "+x") })),
          "The user rejected permission to use this specific tool call with the following feedback: use smaller patches",
        )
        assert.deepStrictEqual(readdirSync(box.directory), [])
      }),
    ).pipe(
      Effect.provide(toolLayer({ directory: box.directory, rules: [...ASK_ALL, rule("edit", "denied.txt", "deny")] })),
    )
  })

  // Only the Linux implementation anchors by file descriptor; elsewhere a narrow race remains.
  it.effect.runIf(process.platform === "linux")(
    "changes nothing outside while a directory flips to a link to the outside (100 attempts)",
    () => {
      const box = sandbox()
      mkdirSync(join(box.directory, "sub"))
      writeFileSync(join(box.directory, "sub", "victim.txt"), "keep\n")
      writeFileSync(join(box.outside, "victim.txt"), "keep\n")
      const before = snapshot(box.outside)
      return Effect.scoped(
        Effect.gen(function* () {
          const tool = yield* patch()
          yield* flipping(box.directory, "sub", box.outside)
          for (let attempt = 0; attempt < 100; attempt++)
            yield* Effect.exit(
              tool.call({
                patchText: envelope(
                  `*** Add File: sub/new-${attempt}.txt`,
                  "+pwned",
                  "*** Update File: sub/victim.txt",
                  "@@",
                  "-keep",
                  "+pwned",
                  "*** Delete File: sub/victim.txt",
                ),
              }),
            )
          assert.deepStrictEqual(snapshot(box.outside), before)
        }),
      ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
    },
  )

  it.effect("never reaches the executor for undecodable input and never dies (property)", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "a.txt"), "a\n")
    const counts: FileCounts = { reads: 0, writes: 0 }
    const hunk = fc.oneof(
      fc.string().map((path) => `*** Add File: ${path}\n+x`),
      fc.string().map((path) => `*** Delete File: ${path}`),
      fc.string().map((path) => `*** Update File: ${path}\n@@\n-a\n+b`),
    )
    const patchText = fc.oneof(
      fc.string(),
      fc.array(hunk, { maxLength: 3 }).map((hunks) => envelope(...hunks)),
    )
    return Effect.scoped(
      neverReachesExecutorUnlessDecoded(
        ApplyPatchTool.Input,
        { patchText },
        patch(() => ({ reply: "reject", message: "no" })),
        counts,
      ),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL, counts })))
  })
})
