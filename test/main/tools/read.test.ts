import { execFileSync } from "node:child_process"
import { mkdirSync, openSync, closeSync, ftruncateSync, symlinkSync, writeFileSync, writeSync } from "node:fs"
import { join, sep } from "node:path"
import { pathToFileURL } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Effect } from "effect"
import sharp from "sharp"
import { DataDir } from "@core/config/DataDir"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Tool } from "@core/tool/Tool"
import { ToolRegistry } from "@core/tool/ToolRegistry"
import { ReadTool } from "@main/tools/read"
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
  structuredOf,
  textOf,
  toolLayer,
  type FileCounts,
} from "./support/fileTools"

const read = (answer?: Parameters<typeof harness>[2]) => harness(ReadTool.name, ReadTool.make, answer)

/** Runs the tool's own settlement (no registry) to see the typed error behind a ToolFailure. */
const failureCause = (context: Tool.Context, input: unknown) =>
  Effect.gen(function* () {
    const tool = yield* ReadTool.make
    const failure = yield* Effect.flip(Tool.settle(tool, { id: "call_1", name: "read", input }, context))
    return (failure.error as { _tag?: string } | undefined)?._tag
  })

const image = (width: number, height: number, format: "png" | "jpeg" | "gif" | "webp") =>
  sharp({ create: { width, height, channels: 3, background: { r: 10, g: 200, b: 30 } } })
    .toFormat(format)
    .toBuffer()

describe("ReadTool", () => {
  it.effect("asserts read for the Location-relative resource and returns a small file whole", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "README.md"), "# Hello\r\nworld\n")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* read()
        const settled = yield* tool.call({ path: "README.md" })
        assert.deepStrictEqual(structuredOf(settled), {
          uri: pathToFileURL(join(box.directory, "README.md")).href,
          name: "README.md",
          content: "# Hello\r\nworld\n",
          encoding: "utf8",
          mime: "text/markdown",
        })
        assert.deepStrictEqual(
          tool.asks.map((ask) => [ask.action, ask.resources, ask.save, ask.source]),
          [["read", ["README.md"], ["*"], { type: "tool", messageID: "msg_1", callID: "call_1" }]],
        )
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  it.effect("is hidden by a read * deny rule and, called anyway under a deny, says only Unable to read", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "README.md"), "secret")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* read()
        const registry = yield* ToolRegistry.Service
        const materialized = yield* registry.materialize([rule("read", "*", "deny")])
        assert.notInclude(
          materialized.definitions.map((definition) => definition.name),
          "read",
        )
        assert.strictEqual(errorOf(yield* tool.call({ path: "README.md" })), "Unable to read README.md")
        assert.strictEqual(tool.asks.length, 0)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: [rule("read", "*", "deny")] })))
  })

  it.effect("asks external_directory for an outside absolute path before read", () => {
    const box = sandbox()
    const file = join(box.outside, "notes.txt")
    writeFileSync(file, "outside")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* read()
        const settled = yield* tool.call({ path: file })
        assert.strictEqual((structuredOf(settled) as ReadTool.Content).content, "outside")
        assert.deepStrictEqual(
          tool.asks.map((ask) => [ask.action, ask.resources, ask.save]),
          [
            ["external_directory", [`${box.outside}/*`], [`${box.outside}/*`]],
            ["read", [file], ["*"]],
          ],
        )
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  it.effect("reads a managed tool-output file by its absolute path under the default rules", () => {
    const box = sandbox()
    const dataDir = makeTempDir("gatehouse-data-")
    return Effect.scoped(
      Effect.gen(function* () {
        const data = yield* DataDir.Service
        mkdirSync(join(data.path, "tool-output"))
        const managed = join(data.path, "tool-output", "tool_0123456789abcdefghijklmnop")
        writeFileSync(managed, "full output\n")
        const tool = yield* read()
        const settled = yield* tool.call({ path: managed })
        assert.strictEqual((structuredOf(settled) as ReadTool.Content).content, "full output\n")
        assert.strictEqual(tool.asks.length, 0)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, dataDir })))
  })

  it.effect("returns a small PNG as 'Image read successfully' and a data-URI file part", () => {
    const box = sandbox()
    return Effect.scoped(
      Effect.gen(function* () {
        const png = yield* Effect.promise(() => image(4, 3, "png"))
        writeFileSync(join(box.directory, "pixel.png"), png)
        const tool = yield* read()
        const settled = yield* tool.call({ path: "pixel.png" })
        assert.deepStrictEqual(settled.result, {
          type: "content",
          value: [
            { type: "text", text: "Image read successfully" },
            {
              type: "file",
              uri: `data:image/png;base64,${png.toString("base64")}`,
              mime: "image/png",
              name: "pixel.png",
            },
          ],
        })
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("recognizes JPEG, GIF and WEBP by their bytes, whatever the file is called", () => {
    const box = sandbox()
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* read()
        for (const format of ["jpeg", "gif", "webp"] as const) {
          writeFileSync(join(box.directory, `picture-${format}.dat`), yield* Effect.promise(() => image(5, 5, format)))
          const settled = yield* tool.call({ path: `picture-${format}.dat` })
          const output = structuredOf(settled) as ReadTool.Content
          assert.strictEqual(output.encoding, "base64")
          assert.strictEqual(output.mime, `image/${format}`)
          assert.strictEqual(settled.result.type, "content")
        }
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("resizes an image over the configured limits and keeps the name the model used", () => {
    const box = sandbox()
    return Effect.scoped(
      Effect.gen(function* () {
        writeFileSync(join(box.directory, "wide.png"), yield* Effect.promise(() => image(300, 60, "png")))
        const tool = yield* read()
        const settled = yield* tool.call({ path: "./wide.png" })
        const output = structuredOf(settled) as ReadTool.Content
        const metadata = yield* Effect.promise(() => sharp(Buffer.from(output.content, "base64")).metadata())
        assert.deepStrictEqual([metadata.width, metadata.height], [100, 20])
        assert.strictEqual(output.name, "wide.png")
        assert.deepInclude(settled.result.value as ReadonlyArray<unknown>, {
          type: "file",
          uri: `data:image/png;base64,${output.content}`,
          mime: "image/png",
          name: "./wide.png",
        })
      }),
    ).pipe(
      Effect.provide(
        toolLayer({
          directory: box.directory,
          config: { attachments: { image: { max_width: 100, max_height: 100 } } },
        }),
      ),
    )
  })

  it.effect("keeps the image errors' own messages: too large without resizing, undecodable, over 20 MiB", () => {
    const box = sandbox()
    return Effect.scoped(
      Effect.gen(function* () {
        const png = yield* Effect.promise(() => image(30, 10, "png"))
        writeFileSync(join(box.directory, "big.png"), png)
        writeFileSync(join(box.directory, "fake.png"), Buffer.from("\x89PNG\r\n\x1a\nnot really", "latin1"))
        const huge = openSync(join(box.directory, "huge.png"), "w")
        writeSync(huge, png)
        ftruncateSync(huge, 20 * 1024 * 1024 + 1)
        closeSync(huge)
        const tool = yield* read()
        assert.strictEqual(
          errorOf(yield* tool.call({ path: "big.png" })),
          `Image big.png is 30x10 with base64 size ${png.toString("base64").length}, exceeding configured limits 20x20/5242880 bytes`,
        )
        assert.strictEqual(errorOf(yield* tool.call({ path: "fake.png" })), "Image could not be decoded: fake.png")
        assert.strictEqual(
          errorOf(yield* tool.call({ path: "huge.png" })),
          "Media exceeds 20971520 byte ingestion limit: huge.png",
        )
      }),
    ).pipe(
      Effect.provide(
        toolLayer({
          directory: box.directory,
          config: { attachments: { image: { auto_resize: false, max_width: 20, max_height: 20 } } },
        }),
      ),
    )
  })

  it.effect("refuses binary files by header, extension, NUL byte or share of control bytes", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "doc.txt"), "%PDF-1.7\n")
    writeFileSync(join(box.directory, "archive.zip"), "looks like text")
    writeFileSync(join(box.directory, "nul.txt"), "a\0b")
    writeFileSync(join(box.directory, "control.txt"), Buffer.from([1, 2, 3, 4, 65, 66, 67, 68, 69]))
    writeFileSync(join(box.directory, "some-control.txt"), Buffer.from([1, 2, 65, 66, 67, 68, 69, 70, 71, 72]))
    // A NUL byte after the sniffed sample still makes the file binary.
    writeFileSync(join(box.directory, "late.txt"), Buffer.concat([Buffer.alloc(70 * 1024, "a"), Buffer.from([0])]))
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* read()
        for (const name of ["doc.txt", "archive.zip", "nul.txt", "control.txt", "late.txt"])
          assert.strictEqual(errorOf(yield* tool.call({ path: name })), `Cannot read binary file: ${name}`)
        assert.strictEqual(
          (structuredOf(yield* tool.call({ path: "some-control.txt" })) as ReadTool.Content).encoding,
          "utf8",
        )
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("decodes strictly: invalid UTF-8 fails as Unable to read, from a MalformedUtf8Error", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "latin1.txt"), Buffer.from("caf\xe9\n", "latin1"))
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* read()
        assert.strictEqual(errorOf(yield* tool.call({ path: "latin1.txt" })), "Unable to read latin1.txt")
        assert.strictEqual(yield* failureCause(tool.context, { path: "latin1.txt" }), "ReadTool.MalformedUtf8Error")
        assert.strictEqual(
          yield* failureCause(tool.context, { path: "latin1.txt", limit: 5 }),
          "ReadTool.MalformedUtf8Error",
        )
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("pages text by offset and limit, reporting the next line", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "lines.txt"), ["one", "two", "three", "four"].join("\r\n"))
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* read()
        assert.deepStrictEqual(structuredOf(yield* tool.call({ path: "lines.txt", offset: 2, limit: 2 })), {
          type: "text-page",
          content: "two\nthree",
          mime: "text/plain",
          offset: 2,
          truncated: true,
          next: 4,
        })
        assert.deepStrictEqual(structuredOf(yield* tool.call({ path: "lines.txt", offset: 4 })), {
          type: "text-page",
          content: "four",
          mime: "text/plain",
          offset: 4,
          truncated: false,
        })
        assert.strictEqual(errorOf(yield* tool.call({ path: "lines.txt", offset: 5 })), "Unable to read lines.txt")
        assert.strictEqual(
          yield* failureCause(tool.context, { path: "lines.txt", offset: 5 }),
          "ReadTool.OffsetOutOfRangeError",
        )
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect(
    "pages a large file at 2000 lines, cuts long lines, and stops at 50 KiB counting each joining newline",
    () => {
      const box = sandbox()
      // Short lines, then one long line, so the file is over 50 KiB and the page ends by line count.
      const many =
        Array.from({ length: 2500 }, (_, index) => `line ${index + 1}`).join("\n") + `\n${"q".repeat(40_000)}`
      writeFileSync(join(box.directory, "many.txt"), many)
      writeFileSync(join(box.directory, "long.txt"), `${"x".repeat(2001)}\n${"y".repeat(2000)}\n`)
      // 100-byte lines: 100 + 101 × 504 = 51 004 bytes fit in 50 KiB less the 128 bytes kept for
      // the continuation note; one more would be 51 105 > 51 072.
      writeFileSync(join(box.directory, "wide.txt"), Array.from({ length: 600 }, () => "z".repeat(100)).join("\n"))
      return Effect.scoped(
        Effect.gen(function* () {
          const tool = yield* read()
          const page = structuredOf(yield* tool.call({ path: "many.txt" })) as ReadTool.TextPage
          assert.strictEqual(page.content.split("\n").length, 2000)
          assert.strictEqual(page.content.split("\n").at(-1), "line 2000")
          assert.deepStrictEqual([page.truncated, page.next], [true, 2001])
          const last = structuredOf(yield* tool.call({ path: "many.txt", offset: 2001 })) as ReadTool.TextPage
          assert.deepStrictEqual([last.content.split("\n").length, last.truncated, last.next], [501, false, undefined])
          assert.strictEqual(last.content.split("\n").at(-1), `${"q".repeat(2000)}... (line truncated to 2000 chars)`)

          const long = structuredOf(yield* tool.call({ path: "long.txt", limit: 10 })) as ReadTool.TextPage
          assert.deepStrictEqual(long.content.split("\n"), [
            `${"x".repeat(2000)}... (line truncated to 2000 chars)`,
            "y".repeat(2000),
          ])

          const wide = structuredOf(yield* tool.call({ path: "wide.txt" })) as ReadTool.TextPage
          assert.strictEqual(wide.content.split("\n").length, 505)
          assert.strictEqual(Buffer.byteLength(wide.content), 51_004)
          assert.deepStrictEqual([wide.truncated, wide.next], [true, 506])
        }),
      ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
    },
  )

  it.effect("shows the model a full page as text with how to continue, without spilling it to a managed file", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "wide.txt"), Array.from({ length: 600 }, () => "z".repeat(100)).join("\n"))
    writeFileSync(join(box.directory, "small.txt"), "hello\nworld\n")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* read()
        const page = yield* tool.call({ path: "wide.txt" })
        assert.isUndefined(page.outputPaths)
        const text = textOf(page)
        assert.isTrue(text.startsWith("z".repeat(100)))
        assert.isTrue(
          text.endsWith("\n\n(Showing lines 1-505. There are more lines; read again with offset=506 to continue.)"),
        )
        assert.strictEqual(textOf(yield* tool.call({ path: "small.txt" })), "hello\nworld\n")
        assert.strictEqual(textOf(yield* tool.call({ path: "wide.txt", offset: 506 })).split("\n").length, 95)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("lists direct children, directories first, skipping entries that escape or are not files", () => {
    const box = sandbox()
    mkdirSync(join(box.directory, "src"))
    mkdirSync(join(box.directory, "Docs"))
    writeFileSync(join(box.directory, "src", "deep.ts"), "")
    writeFileSync(join(box.directory, "b.json"), "{}")
    writeFileSync(join(box.directory, "a.md"), "")
    writeFileSync(join(box.outside, "secret.txt"), "")
    symlinkSync(join(box.outside, "secret.txt"), join(box.directory, "escape.txt"))
    symlinkSync(box.outside, join(box.directory, "escape-dir"))
    symlinkSync(join(box.directory, "a.md"), join(box.directory, "alias.md"))
    execFileSync("mkfifo", [join(box.directory, "pipe")])
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* read()
        assert.deepStrictEqual(structuredOf(yield* tool.call({ path: "." })), {
          entries: [
            { path: `Docs${sep}`, type: "directory", mime: "application/x-directory" },
            { path: `src${sep}`, type: "directory", mime: "application/x-directory" },
            { path: "a.md", type: "file", mime: "text/markdown" },
            { path: "alias.md", type: "file", mime: "text/markdown" },
            { path: "b.json", type: "file", mime: "application/json" },
          ],
          truncated: false,
        })
        assert.deepStrictEqual(structuredOf(yield* tool.call({ path: box.directory, offset: 2, limit: 2 })), {
          entries: [
            { path: `src${sep}`, type: "directory", mime: "application/x-directory" },
            { path: "a.md", type: "file", mime: "text/markdown" },
          ],
          truncated: true,
          next: 4,
        })
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
  })

  it.effect("fails as Unable to read for escaping paths, links out and non-files, asking nothing", () => {
    const box = sandbox()
    writeFileSync(join(box.outside, "secret.txt"), "secret")
    symlinkSync(join(box.outside, "secret.txt"), join(box.directory, "link.txt"))
    execFileSync("mkfifo", [join(box.directory, "fifo")])
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* read()
        assert.strictEqual(
          errorOf(yield* tool.call({ path: "../outside/secret.txt" })),
          "Unable to read ../outside/secret.txt",
        )
        assert.strictEqual(errorOf(yield* tool.call({ path: "link.txt" })), "Unable to read link.txt")
        assert.strictEqual(errorOf(yield* tool.call({ path: "missing.txt" })), "Unable to read missing.txt")
        assert.strictEqual(errorOf(yield* tool.call({ path: "fifo" })), "Unable to read fifo")
        assert.strictEqual(yield* failureCause(tool.context, { path: "fifo" }), "ReadTool.PathKindError")
        assert.strictEqual(tool.asks.length, 0)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  it.effect("shows the model a person's rejection feedback, and lets a plain rejection stop the session", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "a.txt"), "a")
    return Effect.scoped(
      Effect.gen(function* () {
        const tool = yield* read((request) =>
          request.source?.callID === "plain" ? { reply: "reject" } : { reply: "reject", message: "read b.txt instead" },
        )
        assert.strictEqual(
          errorOf(yield* tool.call({ path: "a.txt" })),
          "The user rejected permission to use this specific tool call with the following feedback: read b.txt instead",
        )
        const defect = yield* defectOf(tool.call({ path: "a.txt" }, "plain"))
        assert.instanceOf(defect, PermissionV2.DeclinedError)
      }),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL })))
  })

  // Only the Linux implementation anchors by file descriptor; elsewhere a narrow race remains.
  it.effect.runIf(process.platform === "linux")(
    "never returns outside content while a directory flips to a link to the outside (100 attempts)",
    () => {
      const box = sandbox()
      mkdirSync(join(box.directory, "sub"))
      writeFileSync(join(box.directory, "sub", "secret.txt"), "inside")
      writeFileSync(join(box.outside, "secret.txt"), "OUTSIDE")
      return Effect.scoped(
        Effect.gen(function* () {
          const tool = yield* read()
          yield* flipping(box.directory, "sub", box.outside)
          for (let attempt = 0; attempt < 100; attempt++) {
            const settled = yield* Effect.exit(tool.call({ path: "sub/secret.txt" }))
            assert.notInclude(JSON.stringify(settled), "OUTSIDE")
          }
        }),
      ).pipe(Effect.provide(toolLayer({ directory: box.directory })))
    },
  )

  it.effect("never reaches the executor for undecodable input and never dies (property)", () => {
    const box = sandbox()
    writeFileSync(join(box.directory, "a.txt"), "a")
    const counts: FileCounts = { reads: 0, writes: 0 }
    return Effect.scoped(
      neverReachesExecutorUnlessDecoded(
        ReadTool.Input,
        { path: fc.string(), offset: fc.integer({ min: -1, max: 4 }), limit: fc.integer({ min: 0, max: 2001 }) },
        read(() => ({ reply: "reject", message: "no" })),
        counts,
      ),
    ).pipe(Effect.provide(toolLayer({ directory: box.directory, rules: ASK_ALL, counts })))
  })
})
