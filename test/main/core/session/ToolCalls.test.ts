import { existsSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Queue } from "effect"
import type { AppEvent } from "@contract/events"
import { EventBus } from "@core/events/EventBus"
import { newId } from "@core/id/Identifier"
import { Projects } from "@core/session/Projects"
import { Runner } from "@core/session/Runner"
import { Sessions } from "@core/session/Sessions"
import { ToolCalls } from "@core/session/ToolCalls"
import { coreTestLayer } from "../../../support/layers"
import { makeTempDir } from "../../../support/temp"
import { runnerTestLayer, watchEvents } from "./Runner.support"

const toolCallsLayer = (options: { readonly dataDir: string; readonly database?: string }) =>
  ToolCalls.layer.pipe(Layer.provideMerge(coreTestLayer(options)))

const newSession = (directory: string, status: "running" | "idle" = "running") =>
  Effect.gen(function* () {
    const projects = yield* Projects.Service
    const sessions = yield* Sessions.Service
    const project = yield* projects.ensure(directory)
    return yield* sessions.create({ projectId: project.id, agent: "build", title: "t", source: "mcp:test", status })
  })

/** The next `count` tool-call events. */
const toolCallEvents = (events: Queue.Queue<AppEvent>, count: number) =>
  Effect.gen(function* () {
    const found: Array<AppEvent> = []
    while (found.length < count) {
      const event = yield* Queue.take(events)
      if (event._tag.startsWith("tool_call.")) found.push(event)
    }
    return found
  })

describe("ToolCalls", () => {
  it.live("writes a call as running before it runs and its outcome once, publishing both", () =>
    Effect.gen(function* () {
      const calls = yield* ToolCalls.Service
      const bus = yield* EventBus.Service
      const events = yield* watchEvents
      const session = yield* newSession(makeTempDir())
      const key = { sessionID: session.id, messageID: "msg_1", callID: "call_a" }

      const started = yield* calls.start({ ...key, tool: "read", input: { path: "a.txt" } })
      assert.strictEqual(started.status, "running")
      assert.isNull(started.finishedAt)
      assert.deepStrictEqual(yield* calls.get(key), started)

      const finished = yield* calls.finish(key, {
        result: { type: "text", value: "preview of a.txt" },
        outputPaths: ["/data/tool-output/tool_1"],
      })
      assert.deepStrictEqual(
        finished && [finished.status, finished.resultKind, finished.preview, finished.outputPaths, finished.error],
        ["completed", "text", "preview of a.txt", ["/data/tool-output/tool_1"], null],
      )
      // A call ends once: a later outcome (a late interruption) changes nothing and publishes nothing.
      const seq = bus.sequence()
      assert.isUndefined(yield* calls.finish(key, { result: { type: "error", value: "late" }, interrupted: true }))
      assert.deepStrictEqual(yield* calls.get(key), finished)
      assert.strictEqual(bus.sequence(), seq)

      const published = yield* toolCallEvents(events, 2)
      assert.deepStrictEqual(
        published.map((event) => [event._tag, "call" in event ? event.call.status : undefined]),
        [
          ["tool_call.started", "running"],
          ["tool_call.finished", "completed"],
        ],
      )
    }).pipe(Effect.provide(toolCallsLayer({ dataDir: makeTempDir() }))),
  )

  it.live("keeps errors, interruptions, file results and raw inputs as the model saw them", () =>
    Effect.gen(function* () {
      const calls = yield* ToolCalls.Service
      const session = yield* newSession(makeTempDir())
      const key = (callID: string) => ({ sessionID: session.id, messageID: "msg_1", callID })
      for (const id of ["e", "i", "f", "r"]) yield* calls.start({ ...key(id), tool: "bash", input: "{not json" })
      yield* calls.finish(key("e"), { result: { type: "error", value: "Permission denied: bash" } })
      yield* calls.finish(key("i"), { result: { type: "error", value: ToolCalls.INTERRUPTED }, interrupted: true })
      yield* calls.finish(key("f"), {
        result: {
          type: "content",
          value: [
            { type: "text", text: "Image read successfully" },
            { type: "file", uri: "data:image/png;base64,AAAA", mime: "image/png", name: "a.png" },
          ],
        },
      })
      yield* calls.finish(key("r"), { result: { type: "json", value: { ok: true } } })
      const rows = yield* calls.forSession(session.id)
      assert.deepStrictEqual(
        rows.map((row) => [row.callID, row.status, row.resultKind, row.preview, row.error, row.input]),
        [
          ["e", "error", "error", "Permission denied: bash", "Permission denied: bash", "{not json"],
          ["i", "interrupted", "error", ToolCalls.INTERRUPTED, ToolCalls.INTERRUPTED, "{not json"],
          ["f", "completed", "content", "Image read successfully\n[file image/png a.png]", null, "{not json"],
          ["r", "completed", "json", '{"ok":true}', null, "{not json"],
        ],
      )
    }).pipe(Effect.provide(toolCallsLayer({ dataDir: makeTempDir() }))),
  )

  it.live("refuses a call of an unknown session and a call recorded twice", () =>
    Effect.gen(function* () {
      const calls = yield* ToolCalls.Service
      const session = yield* newSession(makeTempDir())
      const missing = yield* Effect.flip(
        calls.start({ sessionID: newId.session(), messageID: "m", callID: "c", tool: "read", input: {} }),
      )
      assert.instanceOf(missing, Sessions.NotFoundError)
      const input = { sessionID: session.id, messageID: "m", callID: "c", tool: "read", input: {} }
      yield* calls.start(input)
      const duplicate = yield* Effect.flip(calls.start(input))
      assert.instanceOf(duplicate, ToolCalls.DuplicateError)
      assert.lengthOf(yield* calls.forSession(session.id), 1)
    }).pipe(Effect.provide(toolCallsLayer({ dataDir: makeTempDir() }))),
  )

  it.live(
    "fails calls a previous process left running as interrupted, never replaying them, and fails its sessions",
    () => {
      const dataDir = makeTempDir()
      const database = join(makeTempDir(), "gatehouse.db")
      const directory = makeTempDir()
      const marker = join(directory, "marker.txt")
      return Effect.gen(function* () {
        // The first process: a bash call is recorded running, then the process dies before it ends.
        const before = yield* Effect.scoped(
          Effect.gen(function* () {
            const calls = yield* ToolCalls.Service
            const running = yield* newSession(directory)
            const idle = yield* newSession(directory, "idle")
            yield* calls.start({
              sessionID: running.id,
              messageID: "msg_1",
              callID: "call_1",
              tool: "bash",
              input: { command: `touch ${marker}` },
            })
            return { running, idle }
          }).pipe(Effect.provide(toolCallsLayer({ dataDir, database }))),
        )

        // The next process, with the runner: recovery happens once, when the layer is built.
        yield* Effect.scoped(
          Effect.gen(function* () {
            const calls = yield* ToolCalls.Service
            const sessions = yield* Sessions.Service
            const runner = yield* Runner.Service
            assert.deepStrictEqual(calls.recovered, { interruptedCalls: 1, failedSessions: [before.running.id] })
            const [call] = yield* calls.forSession(before.running.id)
            assert.deepStrictEqual(
              [call!.status, call!.error, call!.resultKind, call!.finishedAt !== null],
              ["interrupted", "Tool execution interrupted", null, true],
            )
            const failed = yield* sessions.get(before.running.id)
            assert.deepStrictEqual([failed.status, failed.reason], ["failed", ToolCalls.RESTARTED])
            assert.strictEqual((yield* sessions.get(before.idle.id)).status, "idle")
            assert.deepStrictEqual(runner.runningUnsafe(), [])
            assert.isFalse(existsSync(marker))
            assert.lengthOf(yield* calls.forSession(before.running.id), 1)
          }).pipe(Effect.provide(runnerTestLayer({ dataDir, database }))),
        )
      })
    },
  )
})
