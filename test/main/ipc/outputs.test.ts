import { existsSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ToolOutputFile } from "@contract/events"
import type { OutputPage, Snapshot } from "@contract/methods"
import { ToolOutputStore } from "@core/output/ToolOutputStore"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import { recordEvents } from "../core/permission/support"
import { makeTempDir } from "../../support/temp"
import { call, contractTestLayer, failure, success } from "./contract"

// The outputs browser's methods through the contract's dispatcher, against a real managed
// directory and real SQLite.

/** Spills `lines` numbered lines for a new session's bash call and returns the managed file. */
const spill = (lines: number) =>
  Effect.gen(function* () {
    const projects = yield* Projects.Service
    const sessions = yield* Sessions.Service
    const outputs = yield* ToolOutputStore.Service
    const project = yield* projects.ensure(makeTempDir())
    const session = yield* sessions.create({ projectId: project.id, agent: "build", title: "t", source: "runner" })
    const text = Array.from({ length: lines }, (_, i) => `line ${i + 1}${i % 100 === 41 ? " needle" : ""}`).join("\n")
    yield* outputs.bound(
      { structured: null, content: [{ type: "text", text }] },
      { sessionID: session.id, toolCallID: "call-1", tool: "bash" },
    )
    const [file] = yield* outputs.list({ sessionID: session.id })
    return { file: file!, session }
  })

describe("outputs handlers", () => {
  it.effect("lists spilled outputs with session, tool, size and lines, and puts them in the snapshot", () =>
    Effect.gen(function* () {
      const { file, session } = yield* spill(3000)
      const listed = success<ReadonlyArray<ToolOutputFile>>(yield* call("outputs.list", {}))
      assert.deepStrictEqual(listed, [file])
      assert.strictEqual(file.sessionId, session.id)
      assert.strictEqual(file.tool, "bash")
      assert.strictEqual(file.lines, 3000)
      const snapshot = success<Snapshot>(yield* call("app.snapshot"))
      assert.deepStrictEqual(snapshot.outputs, [file])
      const none = success<ReadonlyArray<ToolOutputFile>>(
        yield* call("outputs.list", { sessionID: "ses_00000000000000ffabcdefABCDEF" }),
      )
      assert.lengthOf(none, 0)
    }).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("pages through a file by lines and says where the next page starts", () =>
    Effect.gen(function* () {
      const { file } = yield* spill(3000)
      const first = success<OutputPage>(yield* call("outputs.read", { id: file.id, limit: 100 }))
      assert.deepStrictEqual(
        first.lines.slice(0, 2).map((line) => [line.number, line.text]),
        [
          [1, "line 1"],
          [2, "line 2"],
        ],
      )
      assert.strictEqual(first.nextOffset, 100)
      const last = success<OutputPage>(yield* call("outputs.read", { id: file.id, offset: 2950, limit: 100 }))
      assert.lengthOf(last.lines, 50)
      assert.strictEqual(last.lines.at(-1)!.number, 3000)
      assert.isNull(last.nextOffset)
    }).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("finds matching lines case-insensitively from an offset, with their line numbers", () =>
    Effect.gen(function* () {
      const { file } = yield* spill(3000)
      const matches = success<OutputPage>(yield* call("outputs.read", { id: file.id, search: "NEEDLE", limit: 3 }))
      assert.deepStrictEqual(
        matches.lines.map((line) => line.number),
        [42, 142, 242],
      )
      const next = success<OutputPage>(
        yield* call("outputs.read", { id: file.id, search: "needle", offset: matches.nextOffset, limit: 1 }),
      )
      assert.deepStrictEqual(
        next.lines.map((line) => line.number),
        [342],
      )
    }).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("refuses a page larger than the limit at the boundary", () =>
    Effect.gen(function* () {
      const { file } = yield* spill(3000)
      const error = failure(yield* call("outputs.read", { id: file.id, limit: 5000 }))
      assert.strictEqual(error._tag, "Contract.InvalidRequestError")
    }).pipe(Effect.provide(contractTestLayer())),
  )

  it.effect("deletes a file, announces it, and then answers not found", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const events = yield* recordEvents
        const { file } = yield* spill(2500)
        assert.isTrue(existsSync(file.path))
        assert.isNull(success(yield* call("outputs.delete", { id: file.id })))
        assert.isFalse(existsSync(file.path))
        yield* events.until(
          (event) => event._tag === "tool_output.deleted" && event.id === file.id && event.reason === "deleted",
        )
        assert.strictEqual(failure(yield* call("outputs.read", { id: file.id }))._tag, "ToolOutputStore.NotFoundError")
        assert.strictEqual(
          failure(yield* call("outputs.delete", { id: file.id }))._tag,
          "ToolOutputStore.NotFoundError",
        )
        assert.lengthOf(success<ReadonlyArray<ToolOutputFile>>(yield* call("outputs.list", {})), 0)
      }),
    ).pipe(Effect.provide(contractTestLayer())),
  )
})
