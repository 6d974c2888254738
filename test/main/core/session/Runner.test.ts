import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Layer, Schema, Scope } from "effect"
import type { Session } from "@contract/model"
import { Locations } from "@core/location/Locations"
import { DecisionLog } from "@core/permission/DecisionLog"
import { PermissionV2 } from "@core/permission/PermissionV2"
import type { Provider } from "@core/session/provider/Provider"
import { Questions } from "@core/session/Questions"
import { Runner } from "@core/session/Runner"
import { Sessions } from "@core/session/Sessions"
import { ToolCalls } from "@core/session/ToolCalls"
import { Tool } from "@core/tool/Tool"
import { Tools } from "@core/tool/Tools"
import { makeTempDir } from "../../../support/temp"
import { nextAsk, runnerTestLayer, script, statusReached, takeUntil, testTools, watchEvents } from "./Runner.support"

const askBash = { agents: { build: [{ action: "bash", resource: "*", effect: "ask" as const }] } }

const project = (files: Readonly<Record<string, string>> = { "notes.txt": "hello world\n" }) => {
  const directory = makeTempDir("gatehouse-runner-")
  for (const [name, content] of Object.entries(files)) writeFileSync(join(directory, name), content)
  return directory
}

/** A provider that records every request it is sent before answering like `inner`. */
const recording = (inner: Provider.Interface) => {
  const requests: Array<Provider.Request> = []
  const provider: Provider.Interface = {
    name: inner.name,
    turn: (request) => Effect.suspend(() => (requests.push(request), inner.turn(request))),
  }
  return { provider, requests }
}

const callsOf = (session: Session) =>
  Effect.gen(function* () {
    const calls = yield* ToolCalls.Service
    return yield* calls.forSession(session.id)
  })

describe("Runner", () => {
  it.live("reads and edits over several turns, records every call and ends idle", () => {
    const directory = project()
    return Effect.gen(function* () {
      const runner = yield* Runner.Service
      const events = yield* watchEvents
      const session = yield* runner.start({
        directory,
        prompt: "Fix the greeting",
        provider: script(
          { text: "Looking.", toolCalls: [{ name: "read", input: { path: "notes.txt" } }] },
          {
            toolCalls: [{ name: "edit", input: { path: "notes.txt", oldString: "world", newString: "there" } }],
            expect: { results: [{ name: "read", contains: "hello world" }] },
          },
          { text: "Done.", expect: { results: [{ name: "edit", type: "text" }] } },
        ),
      })
      assert.strictEqual(session.status, "running")
      assert.strictEqual(session.source, "runner")
      assert.strictEqual(session.agent, "build")
      assert.strictEqual(session.title, "Fix the greeting")
      assert.strictEqual(session.provider, "scripted")

      const ended = yield* runner.wait(session.id)
      assert.strictEqual(ended.status, "idle")
      assert.isUndefined(ended.reason)
      assert.strictEqual(readFileSync(join(directory, "notes.txt"), "utf8"), "hello there\n")
      const calls = yield* callsOf(session)
      assert.deepStrictEqual(
        calls.map((call) => [call.callID, call.tool, call.status]),
        [
          ["call_1_0", "read", "completed"],
          ["call_2_0", "edit", "completed"],
        ],
      )
      assert.include(calls[0]!.preview!, "hello world")
      assert.deepStrictEqual(calls[0]!.input, { path: "notes.txt" })
      assert.notStrictEqual(calls[0]!.messageID, calls[1]!.messageID)
      assert.isNotNull(calls[1]!.finishedAt)

      const started = yield* takeUntil(
        events,
        (event): event is Extract<typeof event, { _tag: "tool_call.started" }> => event._tag === "tool_call.started",
      )
      assert.strictEqual(started.call.status, "running")
      const finished = yield* takeUntil(
        events,
        (event): event is Extract<typeof event, { _tag: "tool_call.finished" }> => event._tag === "tool_call.finished",
      )
      assert.strictEqual(finished.call.callID, "call_1_0")
      assert.strictEqual(finished.call.status, "completed")
      yield* statusReached(events, session.id, "idle")
    }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir() })))
  })

  it.live("stops the loop on a decline: unsettled calls fail as interrupted and the session is declined", () => {
    const directory = project()
    return Effect.gen(function* () {
      const runner = yield* Runner.Service
      const locations = yield* Locations.Service
      const events = yield* watchEvents
      const { provider, requests } = recording(
        script(
          {
            toolCalls: [
              { name: "read", input: { path: "notes.txt" } },
              { name: "bash", input: { command: "echo one > one.txt" } },
              { name: "bash", input: { command: "echo two > two.txt" } },
            ],
          },
          { toolCalls: [{ name: "bash", input: { command: "echo three > three.txt" } }] },
        ),
      )
      const settled = yield* watchEvents
      const session = yield* runner.start({ directory, provider })
      const first = yield* nextAsk(events, session.id)
      yield* nextAsk(events, session.id)
      yield* statusReached(events, session.id, "blocked")
      yield* takeUntil(
        settled,
        (event): event is Extract<typeof event, { _tag: "tool_call.finished" }> =>
          event._tag === "tool_call.finished" && event.call.tool === "read",
      )
      yield* locations.reply({ requestID: first.id, reply: "reject" })

      const ended = yield* runner.wait(session.id)
      assert.strictEqual(ended.status, "declined")
      assert.strictEqual(ended.reason, new PermissionV2.DeclinedError().message)
      assert.strictEqual(requests.length, 1)
      for (const file of ["one.txt", "two.txt", "three.txt"]) assert.isFalse(existsSync(join(directory, file)))
      const calls = yield* callsOf(session)
      assert.deepStrictEqual(
        calls.map((call) => [call.tool, call.status, call.error]),
        [
          ["read", "completed", null],
          ["bash", "interrupted", "Tool execution interrupted"],
          ["bash", "interrupted", "Tool execution interrupted"],
        ],
      )
      assert.lengthOf(locations.pendingUnsafe(), 0)
    }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir(), config: askBash })))
  })

  it.live("declines the session when the person dismisses its question", () => {
    const directory = project()
    return Effect.gen(function* () {
      const runner = yield* Runner.Service
      const questions = yield* Questions.Service
      const events = yield* watchEvents
      const session = yield* runner.start({
        directory,
        provider: script({
          toolCalls: [
            {
              name: "question",
              input: {
                questions: [
                  { question: "Proceed?", header: "Proceed", options: [{ label: "Yes", description: "go" }] },
                ],
              },
            },
          ],
        }),
      })
      const asked = yield* takeUntil(
        events,
        (event): event is Extract<typeof event, { _tag: "question.v2.asked" }> => event._tag === "question.v2.asked",
      )
      yield* statusReached(events, session.id, "blocked")
      yield* questions.reject(asked.request.id)
      const ended = yield* runner.wait(session.id)
      assert.strictEqual(ended.status, "declined")
      assert.strictEqual(ended.reason, new Questions.RejectedError().message)
      const [call] = yield* callsOf(session)
      assert.strictEqual(call!.status, "interrupted")
    }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir() })))
  })

  it.live("continues after a correction, and the model reads the feedback as the tool's error", () => {
    const directory = project()
    return Effect.gen(function* () {
      const runner = yield* Runner.Service
      const locations = yield* Locations.Service
      const events = yield* watchEvents
      const { provider, requests } = recording(
        script(
          { toolCalls: [{ name: "bash", input: { command: "rm -rf build" } }] },
          {
            toolCalls: [{ name: "read", input: { path: "notes.txt" } }],
            expect: { error: "keep the build directory" },
          },
          { text: "Understood.", expect: { results: [{ contains: "hello world" }] } },
        ),
      )
      const session = yield* runner.start({ directory, provider })
      const ask = yield* nextAsk(events, session.id)
      yield* locations.reply({ requestID: ask.id, reply: "reject", message: "keep the build directory" })
      const ended = yield* runner.wait(session.id)
      assert.strictEqual(ended.status, "idle", ended.reason)
      assert.strictEqual(requests.length, 3)
      const feedback = requests[1]!.messages.find((message) => message.role === "tool")
      assert.deepStrictEqual(feedback?.role === "tool" && feedback.result, {
        type: "error",
        value: new PermissionV2.CorrectedError({ feedback: "keep the build directory" }).message,
      })
      const calls = yield* callsOf(session)
      assert.deepStrictEqual(
        calls.map((call) => [call.tool, call.status]),
        [
          ["bash", "error"],
          ["read", "completed"],
        ],
      )
      assert.include(calls[0]!.error!, "keep the build directory")
    }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir(), config: askBash })))
  })

  it.live("refuses a call whose tool was replaced between materialization and settlement, and settles the rest", () => {
    const directory = project()
    const echo = (label: string) =>
      Tool.make({
        description: "echo",
        input: Schema.Struct({ text: Schema.String }),
        output: Schema.String,
        execute: (input) => Effect.succeed(`${label}: ${input.text}`),
      })
    const plugins = Layer.mergeAll(
      testTools,
      Layer.effectDiscard(
        Effect.gen(function* () {
          const tools = yield* Tools.Service
          yield* tools.register({ echo: echo("original") })
        }),
      ),
    )
    return Effect.gen(function* () {
      const runner = yield* Runner.Service
      const locations = yield* Locations.Service
      const sessions = yield* Sessions.Service
      const hold = yield* Scope.make()
      const scripted = script(
        {
          toolCalls: [
            { name: "echo", input: { text: "hi" } },
            { name: "read", input: { path: "notes.txt" } },
          ],
        },
        {
          text: "ok",
          expect: { results: [{ type: "error", contains: "Stale tool call: echo" }, { contains: "hello world" }] },
        },
      )
      // A plugin re-registers `echo` while the model is answering: after the catalog was sent.
      const provider: Provider.Interface = {
        name: "scripted",
        turn: (request) =>
          Effect.gen(function* () {
            if (!request.messages.some((message) => message.role === "assistant")) {
              const [session] = yield* sessions.list()
              const handle = yield* locations.acquire(session!.projectId).pipe(Scope.provide(hold), Effect.orDie)
              yield* handle.registry.register({ echo: echo("replacement") }).pipe(Scope.provide(hold), Effect.orDie)
            }
            return yield* scripted.turn(request)
          }),
      }
      const session = yield* runner.start({ directory, provider })
      const ended = yield* runner.wait(session.id)
      assert.strictEqual(ended.status, "idle", ended.reason)
      const calls = yield* callsOf(session)
      assert.deepStrictEqual(
        calls.map((call) => [call.tool, call.status, call.preview]),
        [
          ["echo", "error", "Stale tool call: echo"],
          ["read", "completed", calls[1]!.preview],
        ],
      )
      yield* Scope.close(hold, Exit.void)
    }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir(), plugins })))
  })

  it.live("advertises no tools on the agent's last step and fails the calls made anyway", () => {
    const directory = project()
    const config = {
      agents: { limited: { steps: 2, permission: [{ action: "*", resource: "*", effect: "allow" as const }] } },
    }
    return Effect.gen(function* () {
      const runner = yield* Runner.Service
      const { provider, requests } = recording(
        script(
          { toolCalls: [{ name: "read", input: { path: "notes.txt" } }] },
          { toolCalls: [{ name: "bash", input: { command: "touch late.txt" } }] },
          { text: "never played" },
        ),
      )
      const session = yield* runner.start({ directory, agent: "limited", provider })
      const ended = yield* runner.wait(session.id)
      assert.strictEqual(ended.status, "idle")
      assert.strictEqual(ended.reason, "Stopped after the agent's maximum of 2 steps")
      assert.strictEqual(requests.length, 2)
      assert.strictEqual(requests[0]!.toolChoice, "auto")
      assert.isAbove(requests[0]!.tools.length, 0)
      assert.strictEqual(requests[1]!.toolChoice, "none")
      assert.lengthOf(requests[1]!.tools, 0)
      assert.isFalse(existsSync(join(directory, "late.txt")))
      const calls = yield* callsOf(session)
      assert.deepStrictEqual(
        calls.map((call) => [call.tool, call.status, call.error]),
        [
          ["read", "completed", null],
          ["bash", "error", Runner.STEPS_EXHAUSTED],
        ],
      )
    }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir(), config })))
  })

  it.live("is blocked while an ask waits and running again once it is answered", () => {
    const directory = project()
    const gate = Deferred.makeUnsafe<void>()
    const plugins = Layer.mergeAll(
      testTools,
      Layer.effectDiscard(
        Effect.gen(function* () {
          const tools = yield* Tools.Service
          yield* tools.register({
            gate: Tool.make({
              description: "waits for the test",
              input: Schema.Struct({}),
              output: Schema.String,
              execute: () => Deferred.await(gate).pipe(Effect.as("opened")),
            }),
          })
        }),
      ),
    )
    return Effect.gen(function* () {
      const runner = yield* Runner.Service
      const locations = yield* Locations.Service
      const events = yield* watchEvents
      const session = yield* runner.start({
        directory,
        provider: script({
          toolCalls: [
            { name: "bash", input: { command: "echo hi" } },
            { name: "gate", input: {} },
          ],
        }),
      })
      const ask = yield* nextAsk(events, session.id)
      yield* statusReached(events, session.id, "blocked")
      yield* locations.reply({ requestID: ask.id, reply: "once" })
      yield* statusReached(events, session.id, "running")
      yield* Deferred.succeed(gate, undefined)
      yield* statusReached(events, session.id, "idle")
      const calls = yield* callsOf(session)
      assert.deepStrictEqual(
        calls.map((call) => [call.tool, call.status]),
        [
          ["bash", "completed"],
          ["gate", "completed"],
        ],
      )
    }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir(), config: askBash, plugins })))
  })

  it.live("stops a session cleanly: its ask is withdrawn, its call interrupted, its status stopped", () => {
    const directory = project()
    return Effect.gen(function* () {
      const runner = yield* Runner.Service
      const locations = yield* Locations.Service
      const log = yield* DecisionLog.Service
      const events = yield* watchEvents
      const session = yield* runner.start({
        directory,
        provider: script({ toolCalls: [{ name: "bash", input: { command: "touch stopped.txt" } }] }),
      })
      const ask = yield* nextAsk(events, session.id)
      yield* runner.stop(session.id)
      const ended = yield* runner.wait(session.id)
      assert.strictEqual(ended.status, "stopped")
      assert.isUndefined(ended.reason)
      yield* takeUntil(
        events,
        (event): event is Extract<typeof event, { _tag: "permission.v2.withdrawn" }> =>
          event._tag === "permission.v2.withdrawn" && event.requestID === ask.id,
      )
      assert.lengthOf(locations.pendingUnsafe(), 0)
      assert.strictEqual((yield* log.get(ask.id))?.status, "interrupted")
      const [call] = yield* callsOf(session)
      assert.strictEqual(call!.status, "interrupted")
      assert.strictEqual(call!.error, "Tool execution interrupted")
      assert.isFalse(existsSync(join(directory, "stopped.txt")))
      assert.deepStrictEqual(runner.runningUnsafe(), [])
      // Stopping a session that has ended changes nothing.
      yield* runner.stop(session.id)
      assert.strictEqual((yield* runner.wait(session.id)).status, "stopped")
    }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir(), config: askBash })))
  })

  it.live("fails the session with the provider's message when the script does not match", () => {
    const directory = project()
    return Effect.gen(function* () {
      const runner = yield* Runner.Service
      const session = yield* runner.start({
        directory,
        provider: script(
          { toolCalls: [{ name: "read", input: { path: "missing.txt" } }] },
          { text: "ok", expect: { results: [{ type: "text" }] } },
        ),
      })
      const ended = yield* runner.wait(session.id)
      assert.strictEqual(ended.status, "failed")
      assert.match(
        ended.reason!,
        /^scripted provider: test\.jsonl line 2: expected the result of read call_1_0 to be text/,
      )
    }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir() })))
  })

  it.live("fails unsettled calls with the storage error when a result cannot be saved", () => {
    const directory = project({ "long.txt": Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n") })
    const dataDir = makeTempDir()
    // The managed output directory cannot be created: spilling the long result fails.
    writeFileSync(join(dataDir, "tool-output"), "not a directory")
    return Effect.gen(function* () {
      const runner = yield* Runner.Service
      const session = yield* runner.start({
        directory,
        provider: script({ toolCalls: [{ name: "read", input: { path: "long.txt" } }] }, { text: "never" }),
      })
      const ended = yield* runner.wait(session.id)
      assert.strictEqual(ended.status, "failed")
      assert.strictEqual(ended.reason, "Tool execution failed: The full tool output could not be saved")
      const [call] = yield* callsOf(session)
      assert.deepStrictEqual([call!.status, call!.error], ["error", ended.reason])
      rmSync(join(dataDir, "tool-output"))
    }).pipe(Effect.provide(runnerTestLayer({ dataDir, config: { tool_output: { max_lines: 5 } } })))
  })

  it.live("refuses to start with an unknown agent or an unreadable script, creating no session", () => {
    const directory = project()
    return Effect.gen(function* () {
      const runner = yield* Runner.Service
      const sessions = yield* Sessions.Service
      const agent = yield* Effect.flip(runner.start({ directory, agent: "nobody", provider: script({ text: "x" }) }))
      assert.instanceOf(agent, Runner.UnknownAgentError)
      const missing = yield* Effect.flip(
        runner.start({ directory, provider: { type: "scripted", script: "does-not-exist.jsonl" } }),
      )
      assert.strictEqual(missing._tag, "Provider.ConfigError")
      assert.include(missing.message, join(directory, "does-not-exist.jsonl"))
      const relative = yield* Effect.flip(runner.start({ directory: "relative/dir", provider: script({ text: "x" }) }))
      assert.strictEqual(relative._tag, "Projects.InvalidDirectoryError")
      assert.lengthOf(yield* sessions.list(), 0)
    }).pipe(Effect.provide(runnerTestLayer({ dataDir: makeTempDir() })))
  })
})
