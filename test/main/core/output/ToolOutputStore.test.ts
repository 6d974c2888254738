import { execFileSync } from "node:child_process"
import { closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { utimesSync, writeFileSync } from "node:fs"
import { open } from "node:fs/promises"
import { isAbsolute, join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { AppEvent, type Envelope } from "@contract/events"
import type { ToolOutputId } from "@contract/ids"
import type { Config } from "@core/config/Config"
import { EventBus } from "@core/events/EventBus"
import { newId } from "@core/id/Identifier"
import { ToolOutputStore } from "@core/output/ToolOutputStore"
import { boundedPreview, countLines, marker } from "@core/output/preview"
import { Store } from "@core/store/Store"
import { sql } from "@core/store/sql"
import type { Tool } from "@core/tool/Tool"
import fc from "fast-check"
import { coreTestLayer } from "../../../support/layers"
import { makeTempDir } from "../../../support/temp"

const DAY = 24 * 60 * 60 * 1000
const sessionID = newId.session()
const provenance = { sessionID, toolCallID: "call-1", tool: "bash" }
const text = (value: string): Tool.ToolOutput => ({ structured: value, content: [{ type: "text", text: value }] })
const lines = (count: number, prefix = "line") => Array.from({ length: count }, (_, i) => `${prefix} ${i}`).join("\n")
const previewOf = (output: Tool.ToolOutput) => {
  const first = output.content[0]
  return first?.type === "text" ? first.text : ""
}
const managedFiles = (dataDir: string) =>
  existsSync(join(dataDir, "tool-output")) ? readdirSync(join(dataDir, "tool-output")) : []
const storeLayer = (dataDir: string, config?: Config.GatehouseConfig) =>
  coreTestLayer({ dataDir, ...(config ? { config } : {}) })

/** Every event published while `effect` runs. */
const collectEvents = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const bus = yield* EventBus.Service
    const subscription = yield* bus.subscribe(() => undefined)
    const value = yield* effect
    const events: Array<Envelope> = []
    while (bus.sequence() > subscription.seq + events.length) events.push(...(yield* subscription.takeBatch))
    return { value, events: events.map((envelope) => envelope.event) }
  })

/** Sets a file's modification time to `ms` (epoch milliseconds). */
const age = (path: string, ms: number) => utimesSync(path, ms / 1000, ms / 1000)

describe("ToolOutputStore", () => {
  it.effect("returns under-limit text unchanged and writes no file", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const bus = yield* EventBus.Service
      const output = text(lines(2000))
      const bounded = yield* outputs.bound(output, provenance)
      assert.strictEqual(bounded.output, output)
      assert.deepStrictEqual(bounded.outputPaths, [])
      const exact = text("é".repeat(25_600))
      assert.strictEqual((yield* outputs.bound(exact)).output, exact)
      assert.deepStrictEqual(managedFiles(dataDir), [])
      assert.strictEqual(bus.sequence(), 0)
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("writes over-limit text in full to a new tool_ file and previews its head, path and tail", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const full = lines(3000)
      const { value: bounded, events } = yield* collectEvents(outputs.bound(text(full), provenance))
      const files = managedFiles(dataDir)
      assert.strictEqual(files.length, 1)
      assert.match(files[0]!, /^tool_[0-9a-f]{16}[0-9A-Za-z]{12}$/)
      const path = join(dataDir, "tool-output", files[0]!)
      assert.isTrue(isAbsolute(path))
      assert.deepStrictEqual(bounded.outputPaths, [path])
      assert.strictEqual(readFileSync(path, "utf8"), full)
      const preview = previewOf(bounded.output)
      assert.strictEqual(preview, boundedPreview(full, marker(path), 2000, 51_200))
      assert.include(preview, `\n\n... output truncated; full content saved to ${path} ...\n\n`)
      assert.isTrue(preview.startsWith("line 0\nline 1\n"))
      assert.isTrue(preview.endsWith("line 2998\nline 2999"))
      assert.strictEqual(bounded.output.structured, full)
      assert.strictEqual(bounded.output.content.length, 1)

      assert.strictEqual(events.length, 1)
      const event = Schema.decodeUnknownSync(AppEvent)(events[0])
      assert.strictEqual(event._tag, "tool_output.created")
      const [listed] = yield* outputs.list()
      assert.deepStrictEqual(listed, {
        id: files[0] as ToolOutputId,
        path,
        bytes: Buffer.byteLength(full),
        lines: 3000,
        sessionId: sessionID,
        toolCallId: "call-1",
        tool: "bash",
        createdAt: listed!.createdAt,
        expiresAt: listed!.createdAt + 7 * DAY,
      })
      assert.deepStrictEqual(event._tag === "tool_output.created" ? event.output : undefined, listed)
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("uses the configured tool_output limits", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      assert.deepStrictEqual(yield* outputs.limits(), { maxLines: 2, maxBytes: 1000 })
      assert.deepStrictEqual((yield* outputs.bound(text("a\nb"))).outputPaths, [])
      const bounded = yield* outputs.bound(text("a\nb\nc"))
      assert.strictEqual(bounded.outputPaths.length, 1)
      assert.strictEqual(readFileSync(bounded.outputPaths[0]!, "utf8"), "a\nb\nc")
      assert.isAtMost(countLines(previewOf(bounded.output)), 2)
    }).pipe(Effect.provide(storeLayer(dataDir, { tool_output: { max_lines: 2, max_bytes: 1000 } })))
  })

  it.effect("falls back to 2000 lines and 51200 bytes when nothing is configured", () =>
    Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      assert.deepStrictEqual(yield* outputs.limits(), { maxLines: 2000, maxBytes: 51_200 })
      const one = yield* outputs.bound(text("x".repeat(51_201)))
      assert.strictEqual(one.outputPaths.length, 1)
      assert.isAtMost(Buffer.byteLength(previewOf(one.output)), 51_200)
    }).pipe(Effect.provide(storeLayer(makeTempDir(), { tool_output: { max_lines: 2000 } }))),
  )

  it.effect("deletes tool_ files past retention, keeps recent and foreign files, and marks rows deleted", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const now = Date.now()
      yield* TestClock.setTime(now)
      const outputs = yield* ToolOutputStore.Service
      const store = yield* Store.Service
      const directory = join(dataDir, "tool-output")
      const managed = yield* outputs.bound(text(lines(3000)), provenance)
      const [managedPath] = managed.outputPaths
      age(managedPath!, now - 8 * DAY)
      writeFileSync(join(directory, "tool_old"), "old")
      age(join(directory, "tool_old"), now - 8 * DAY)
      writeFileSync(join(directory, "tool_recent"), "recent")
      age(join(directory, "tool_recent"), now - 6 * DAY)
      writeFileSync(join(directory, "notes.txt"), "not ours")
      age(join(directory, "notes.txt"), now - 30 * DAY)
      mkdirSync(join(directory, "tool_dir"))
      age(join(directory, "tool_dir"), now - 30 * DAY)

      const { events } = yield* collectEvents(outputs.cleanup())
      assert.sameMembers(managedFiles(dataDir), ["tool_recent", "notes.txt", "tool_dir"])
      const id = managedPath!.slice(directory.length + 1) as ToolOutputId
      assert.deepStrictEqual(events, [{ _tag: "tool_output.deleted", id, reason: "expired" }])
      assert.deepStrictEqual(yield* outputs.list(), [])
      const row = store.get(
        Schema.Struct({ deleted_at: Schema.NullOr(Schema.Number) }),
        sql`SELECT deleted_at FROM tool_output WHERE id = ${id}`,
      )
      assert.strictEqual(row?.deleted_at, now)
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("marks an expired row deleted when its file was already removed by hand", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const now = Date.now()
      yield* TestClock.setTime(now)
      const outputs = yield* ToolOutputStore.Service
      const bounded = yield* outputs.bound(text(lines(3000)))
      rmSync(bounded.outputPaths[0]!)
      yield* outputs.cleanup()
      assert.strictEqual((yield* outputs.list()).length, 1)
      yield* TestClock.adjust(Duration.days(7))
      const { events } = yield* collectEvents(outputs.cleanup())
      assert.deepStrictEqual(
        events.map((event) => event._tag),
        ["tool_output.deleted"],
      )
      assert.deepStrictEqual(yield* outputs.list(), [])
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("never fails the sweep when the managed directory is missing or unreadable", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      yield* outputs.cleanup()
      writeFileSync(join(dataDir, "tool-output"), "a file, not a directory")
      yield* outputs.cleanup()
      assert.isTrue(existsSync(join(dataDir, "tool-output")))
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("sweeps once at start and then every hour in one scoped fiber", () => {
    const dataDir = makeTempDir()
    const now = Date.now()
    return Effect.gen(function* () {
      yield* TestClock.setTime(now)
      const bus = yield* EventBus.Service
      const outputs = yield* ToolOutputStore.Service
      const subscription = yield* bus.subscribe(() => undefined)
      const tags = (batch: ReadonlyArray<Envelope>) => batch.map((envelope) => envelope.event._tag)
      // One expired file at start, so the first sweep has nothing left to do after announcing it
      // and is asleep before this fiber moves the clock.
      const first = (yield* outputs.bound(text(lines(3000)))).outputPaths[0]!
      age(first, now - 8 * DAY)
      assert.deepStrictEqual(tags(yield* subscription.takeBatch), ["tool_output.created"])

      yield* Layer.build(ToolOutputStore.layerRetention)
      assert.deepStrictEqual(tags(yield* subscription.takeBatch), ["tool_output.deleted"])
      assert.isFalse(existsSync(first))

      const second = (yield* outputs.bound(text(lines(3000)))).outputPaths[0]!
      age(second, now - 8 * DAY)
      assert.deepStrictEqual(tags(yield* subscription.takeBatch), ["tool_output.created"])
      yield* TestClock.adjust(Duration.minutes(59))
      // Nothing can signal that no sweep ran, so give a wrongly scheduled one real time to act.
      yield* TestClock.withLive(Effect.sleep(Duration.millis(50)))
      assert.isTrue(existsSync(second))
      yield* TestClock.adjust(Duration.minutes(1))
      assert.deepStrictEqual(tags(yield* subscription.takeBatch), ["tool_output.deleted"])
      assert.isFalse(existsSync(second))
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("fails with a write StorageError when tool-output is a regular file, leaving no row", () => {
    const dataDir = makeTempDir()
    writeFileSync(join(dataDir, "tool-output"), "in the way")
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const bus = yield* EventBus.Service
      const error = yield* Effect.flip(outputs.bound(text(lines(3000)), provenance))
      assert.instanceOf(error, ToolOutputStore.StorageError)
      assert.strictEqual(error.operation, "write")
      assert.strictEqual(error.message, "The full tool output could not be saved")
      assert.deepStrictEqual(yield* outputs.list(), [])
      assert.strictEqual(bus.sequence(), 0)
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("fails with an encode StorageError for structured output that is not JSON when there is no content", () =>
    Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const error = yield* Effect.flip(outputs.bound({ structured: { count: 1n }, content: [] }))
      assert.instanceOf(error, ToolOutputStore.StorageError)
      assert.strictEqual(error.operation, "encode")
      const withContent = { structured: { count: 1n }, content: [{ type: "text" as const, text: "1" }] }
      assert.strictEqual((yield* outputs.bound(withContent)).output, withContent)
    }).pipe(Effect.provide(storeLayer(makeTempDir()))),
  )

  it.effect("measures and saves the pretty JSON of structured output when there is no content", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const structured = { rows: Array.from({ length: 10 }, (_, i) => ({ i })) }
      const small = { structured, content: [] }
      assert.strictEqual((yield* outputs.bound(small)).output, small)
      const bounded = yield* outputs.bound({
        structured: { rows: Array.from({ length: 1000 }, (_, i) => ({ i })) },
        content: [],
      })
      assert.strictEqual(bounded.outputPaths.length, 1)
      const saved = readFileSync(bounded.outputPaths[0]!, "utf8")
      assert.strictEqual(saved, JSON.stringify({ rows: Array.from({ length: 1000 }, (_, i) => ({ i })) }, null, 2))
      assert.deepStrictEqual(bounded.output.structured, { rows: Array.from({ length: 1000 }, (_, i) => ({ i })) })
      assert.isTrue(previewOf(bounded.output).startsWith('{\n  "rows": [\n'))
    }).pipe(Effect.provide(storeLayer(dataDir, { tool_output: { max_lines: 100 } })))
  })

  it.effect("bounds an oversized aggregate of text parts into one file, keeping structured output", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const parts = ["a".repeat(30_000), "b".repeat(30_000), "c".repeat(30_000)]
      const bounded = yield* outputs.bound({
        structured: { kept: true },
        content: parts.map((part) => ({ type: "text" as const, text: part })),
      })
      assert.strictEqual(managedFiles(dataDir).length, 1)
      assert.strictEqual(readFileSync(bounded.outputPaths[0]!, "utf8"), parts.join(""))
      assert.deepStrictEqual(bounded.output.structured, { kept: true })
      assert.strictEqual(bounded.output.content.length, 1)
      const preview = previewOf(bounded.output)
      assert.isAtMost(Buffer.byteLength(preview), 51_200)
      assert.isTrue(preview.startsWith("aaaa") && preview.endsWith("cccc"))
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("keeps oversized inline media as it is, never counting or writing it", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const image = {
        type: "file" as const,
        uri: `data:image/png;base64,${"A".repeat(6 * 1024 * 1024)}`,
        mime: "image/png",
      }
      const mediaOnly = { structured: {}, content: [image] }
      const kept = yield* outputs.bound(mediaOnly)
      assert.strictEqual(kept.output, mediaOnly)
      assert.deepStrictEqual(managedFiles(dataDir), [])

      const mixed = yield* outputs.bound({
        structured: "s",
        content: [{ type: "text", text: lines(2000) }, image, { type: "text", text: "\nmore" }],
      })
      assert.strictEqual(readFileSync(mixed.outputPaths[0]!, "utf8"), `${lines(2000)}\nmore`)
      assert.strictEqual(mixed.output.content.length, 2)
      assert.strictEqual(mixed.output.content[1], image)
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("never splits an emoji in the preview of a multi-byte output", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const full = "😀".repeat(40_000)
      const bounded = yield* outputs.bound(text(full))
      assert.strictEqual(readFileSync(bounded.outputPaths[0]!, "utf8"), full)
      const preview = previewOf(bounded.output)
      const [head, tail] = preview.split(`\n\n${marker(bounded.outputPaths[0]!)}\n\n`)
      assert.match(head!, /^(😀)+$/u)
      assert.match(tail!, /^(😀)+$/u)
      assert.isAtMost(Buffer.byteLength(preview), 51_200)
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("keeps every bounded preview within limits and every saved file complete", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const samples = fc.sample(
        fc.string({ unit: fc.constantFrom("a", "\n", "é", "😀", " "), minLength: 1, maxLength: 2000 }),
        { numRuns: 40, seed: 7 },
      )
      for (const full of samples) {
        const bounded = yield* outputs.bound(text(full))
        const preview = previewOf(bounded.output)
        assert.isAtMost(countLines(preview), 20)
        assert.isAtMost(Buffer.byteLength(preview), 400)
        if (bounded.outputPaths.length === 0) {
          assert.strictEqual(preview, full)
          continue
        }
        assert.strictEqual(readFileSync(bounded.outputPaths[0]!, "utf8"), full)
        const [head, tail = ""] = preview.split(`\n\n${marker(bounded.outputPaths[0]!)}`)
        assert.isTrue(full.startsWith(head!))
        assert.isTrue(full.endsWith(tail.replace(/^\n\n/, "")))
      }
    }).pipe(Effect.provide(storeLayer(dataDir, { tool_output: { max_lines: 20, max_bytes: 400 } })))
  })

  it.effect("yields an interrupt exit when interrupted while the file write is blocked", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const pool = stallThreadPool()
      const fiber = yield* Effect.forkChild(outputs.bound(text(lines(3000)), provenance))
      // The directory is created synchronously just before the (stalled) asynchronous open.
      while (!existsSync(join(dataDir, "tool-output"))) yield* Effect.promise(() => tick())
      for (let i = 0; i < 5; i++) yield* Effect.promise(() => tick())
      assert.isUndefined(fiber.pollUnsafe())
      const interrupting = yield* Effect.forkChild(Fiber.interrupt(fiber))
      yield* Effect.promise(() => pool.release())
      yield* Fiber.join(interrupting)
      const exit = yield* Effect.exit(Fiber.join(fiber))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause))
      assert.deepStrictEqual(managedFiles(dataDir), [])
      assert.deepStrictEqual(yield* outputs.list(), [])
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("lists outputs newest first, by session, and reads them page by page", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const other = newId.session()
      const first = yield* outputs.bound(text(lines(5000)), provenance)
      yield* TestClock.adjust(Duration.seconds(1))
      yield* outputs.bound(text(lines(3000, "other")), { sessionID: other, toolCallID: "call-2", tool: "grep" })
      const all = yield* outputs.list()
      assert.deepStrictEqual(
        all.map((output) => output.tool),
        ["grep", "bash"],
      )
      const mine = yield* outputs.list({ sessionID })
      assert.deepStrictEqual(
        mine.map((output) => output.path),
        first.outputPaths,
      )
      const id = mine[0]!.id

      const page = yield* outputs.read({ id, offset: 0, limit: 3 })
      assert.deepStrictEqual(page.lines, [
        { number: 1, text: "line 0", cut: false },
        { number: 2, text: "line 1", cut: false },
        { number: 3, text: "line 2", cut: false },
      ])
      assert.strictEqual(page.nextOffset, 3)
      assert.deepStrictEqual(page.output, mine[0])
      const last = yield* outputs.read({ id, offset: 4998, limit: 100 })
      assert.deepStrictEqual(
        last.lines.map((line) => line.text),
        ["line 4998", "line 4999"],
      )
      assert.isUndefined(last.nextOffset)

      const found = yield* outputs.read({ id, search: "LINE 42", limit: 3 })
      assert.deepStrictEqual(
        found.lines.map((line) => line.number),
        [43, 421, 422],
      )
      assert.strictEqual(found.nextOffset, 422)
      const more = yield* outputs.read({ id, search: "line 42", offset: found.nextOffset!, limit: 200 })
      assert.deepStrictEqual(more.lines[0], { number: 423, text: "line 422", cut: false })
      assert.strictEqual(more.lines.length, 8 + 100)
      assert.isUndefined(more.nextOffset)
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("reads a huge single line in bounded pieces and finds text across chunk boundaries", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const needle = "NEEDLE"
      const long = `${"😀".repeat(20_000)}${"a".repeat(65_536 - 3)}${needle}${"b".repeat(200_000)}`
      const bounded = yield* outputs.bound(text(`${long}\nshort 😀\n${"c".repeat(70_000)}`), provenance)
      const [output] = yield* outputs.list()
      assert.deepStrictEqual(output?.path, bounded.outputPaths[0])
      const page = yield* outputs.read({ id: output!.id })
      assert.strictEqual(page.lines.length, 3)
      assert.deepInclude(page.lines[0], { number: 1, cut: true })
      assert.strictEqual(page.lines[0]!.text, long.slice(0, ToolOutputStore.MAX_PAGE_LINE_LENGTH))
      assert.deepStrictEqual(page.lines[1], { number: 2, text: "short 😀", cut: false })
      const found = yield* outputs.read({ id: output!.id, search: "needle" })
      assert.deepStrictEqual(
        found.lines.map((line) => line.number),
        [1],
      )
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("deletes a managed output on request and announces it once", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const bounded = yield* outputs.bound(text(lines(3000)), provenance)
      const [output] = yield* outputs.list()
      const { events } = yield* collectEvents(outputs.delete(output!.id))
      assert.deepStrictEqual(events, [{ _tag: "tool_output.deleted", id: output!.id, reason: "deleted" }])
      assert.isFalse(existsSync(bounded.outputPaths[0]!))
      assert.deepStrictEqual(yield* outputs.list(), [])
      const again = yield* Effect.flip(outputs.delete(output!.id))
      assert.instanceOf(again, ToolOutputStore.NotFoundError)
      assert.strictEqual(again.message, `Tool output not found: ${output!.id}`)
      assert.instanceOf(yield* Effect.flip(outputs.read({ id: output!.id })), ToolOutputStore.NotFoundError)
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })

  it.effect("reports a managed file removed by hand as not found when read, and still deletes its row", () => {
    const dataDir = makeTempDir()
    return Effect.gen(function* () {
      const outputs = yield* ToolOutputStore.Service
      const bounded = yield* outputs.bound(text(lines(3000)))
      const [output] = yield* outputs.list()
      rmSync(bounded.outputPaths[0]!)
      assert.instanceOf(yield* Effect.flip(outputs.read({ id: output!.id })), ToolOutputStore.NotFoundError)
      yield* outputs.delete(output!.id)
      assert.deepStrictEqual(yield* outputs.list(), [])
    }).pipe(Effect.provide(storeLayer(dataDir)))
  })
})

const tick = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Occupies every libuv pool thread with an open() of a FIFO that has no writer, so the next
 * asynchronous file operation waits; `release` gives the FIFOs writers and lets everything go.
 */
function stallThreadPool() {
  const size = Number(process.env.UV_THREADPOOL_SIZE ?? 4)
  const dir = makeTempDir()
  const fifos = Array.from({ length: size }, (_, i) => join(dir, `fifo-${i}`))
  for (const fifo of fifos) execFileSync("mkfifo", [fifo])
  const readers = fifos.map((fifo) => open(fifo, "r"))
  return {
    release: async () => {
      for (const fifo of fifos) {
        // A reader blocked in open() counts as present, so this does not block; retry until the
        // pool thread has actually entered open().
        for (;;) {
          try {
            closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
            break
          } catch {
            await tick()
          }
        }
      }
      for (const reader of readers) await (await reader).close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
