import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Queue, Schema } from "effect"
import fc from "fast-check"
import type { AppEvent } from "@contract/events"
import type { QuestionInfo, QuestionRequest } from "@contract/model"
import type { Config } from "@core/config/Config"
import { EventBus } from "@core/events/EventBus"
import { Questions } from "@core/session/Questions"
import { Store } from "@core/store/Store"
import { sql } from "@core/store/sql"
import { QuestionTool } from "@main/tools/question"
import { autoAnswer, locationTestLayer, makeSession } from "../../support/location"
import { makeTempDir } from "../../support/temp"
import { errorText, registered, resultText, watchEvents } from "./support/registered"

const root = makeTempDir()
const directory = join(root, "project")
mkdirSync(directory)
// The built-in rules: `build` may ask questions, every other agent is denied (`question * deny`).
const layer = (config: Config.GatehouseConfig = {}) => locationTestLayer({ dataDir: makeTempDir(), directory, config })

const questions: ReadonlyArray<QuestionInfo> = [
  {
    question: "Which database?",
    header: "Database",
    options: [
      { label: "SQLite (Recommended)", description: "One file" },
      { label: "Postgres", description: "A server" },
    ],
  },
  {
    question: "Which checks?",
    header: "Checks",
    options: [
      { label: "Lint", description: "eslint" },
      { label: "Types", description: "tsc" },
    ],
    multiple: true,
  },
  { question: "Anything else?", header: "Other", options: [] },
]

const askedOf = (events: Queue.Queue<AppEvent>) =>
  Effect.map(Queue.take(events), (event) => (event as { readonly request: QuestionRequest }).request)

const setup = (agent = "build") =>
  Effect.gen(function* () {
    const session = yield* makeSession(agent)
    const events = yield* watchEvents(
      "question.v2.asked",
      "question.v2.replied",
      "question.v2.rejected",
      "question.v2.withdrawn",
    )
    const service = yield* Questions.Service
    const { settle, settleExit } = yield* registered(QuestionTool.name, yield* QuestionTool.make, session.id)
    return { session, events, service, settle, settleExit }
  })

describe("QuestionTool", () => {
  it.effect("asks the questions through the service and answers the model with the picked labels", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { session, events, service, settle } = yield* setup()
        const fiber = yield* Effect.forkScoped(settle({ questions }, { callID: "call_q" }))
        const request = yield* askedOf(events)
        assert.match(request.id, /^que_/)
        assert.deepStrictEqual(request, {
          id: request.id,
          sessionID: session.id,
          questions,
          tool: { messageID: "msg_test", callID: "call_q" },
        })
        yield* service.reply({ requestID: request.id, answers: [["SQLite (Recommended)"], ["Lint", "Types"]] })
        const settlement = yield* Fiber.join(fiber)
        assert.strictEqual(
          resultText(settlement),
          'User has answered your questions: "Which database?"="SQLite (Recommended)", "Which checks?"="Lint, Types", "Anything else?"="Unanswered". You can now continue with the user\'s answers in mind.',
        )
        assert.deepStrictEqual(settlement.output?.structured, {
          answers: [["SQLite (Recommended)"], ["Lint", "Types"], []],
        })
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("answers Permission denied: question for agents the default rules deny, asking nothing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { settle, service } = yield* setup("general")
        const bus = yield* EventBus.Service
        const before = bus.sequence()
        assert.strictEqual(errorText(yield* settle({ questions }, { agent: "general" })), "Permission denied: question")
        assert.strictEqual(bus.sequence(), before)
        assert.deepStrictEqual(yield* service.list(), [])
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("answers Permission denied: question for a rejected ask, even with feedback", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const asks = yield* autoAnswer(() => ({ reply: "reject", message: "just decide yourself" }))
        const { settle, service } = yield* setup()
        assert.strictEqual(errorText(yield* settle({ questions })), "Permission denied: question")
        assert.deepStrictEqual(
          asks.map((ask) => [ask.action, ask.resources, ask.save]),
          [["question", ["*"], undefined]],
        )
        assert.deepStrictEqual(yield* service.list(), [])
      }),
    ).pipe(Effect.provide(layer({ agents: { build: [{ action: "question", resource: "*", effect: "ask" }] } }))),
  )

  it.effect("lets a dismissal escape settlement as a QuestionV2.RejectedError defect", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { events, service, settleExit } = yield* setup()
        const fiber = yield* Effect.forkScoped(settleExit({ questions }))
        const request = yield* askedOf(events)
        yield* service.reject(request.id)
        const exit = yield* Fiber.join(fiber)
        assert.isTrue(Exit.isFailure(exit))
        const defect = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isDieReason)?.defect : undefined
        assert.instanceOf(defect, Questions.RejectedError)
        assert.deepStrictEqual(yield* Queue.take(events), {
          _tag: "question.v2.rejected",
          sessionID: request.sessionID,
          requestID: request.id,
        })
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("withdraws the question when the call is interrupted", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { events, service, settle } = yield* setup()
        const store = yield* Store.Service
        const fiber = yield* Effect.forkScoped(settle({ questions }))
        const request = yield* askedOf(events)
        yield* Fiber.interrupt(fiber)
        assert.deepStrictEqual(yield* Queue.take(events), {
          _tag: "question.v2.withdrawn",
          sessionID: request.sessionID,
          requestID: request.id,
        })
        assert.deepStrictEqual(yield* service.list(), [])
        const row = store.get(
          Schema.Struct({ status: Schema.String }),
          sql`SELECT status FROM question WHERE id = ${request.id}`,
        )
        assert.strictEqual(row?.status, "interrupted")
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("refuses a header over 30 characters and an empty question list as invalid input", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { settle, service } = yield* setup()
        const long = { ...questions[0]!, header: "x".repeat(31) }
        assert.match(errorText(yield* settle({ questions: [long] })), /^Invalid tool input: questions\[0\]\.header: /)
        assert.match(errorText(yield* settle({ questions: [] })), /^Invalid tool input: questions: /)
        assert.match(
          errorText(yield* settle({ questions: [{ question: "q", header: "h", options: [{ label: "a" }] }] })),
          /^Invalid tool input: questions\[0\]\.options\[0\]\.description: /,
        )
        assert.deepStrictEqual(yield* service.list(), [])
      }),
    ).pipe(Effect.provide(layer())),
  )

  it("formats every question with its answers, Unanswered when empty or missing", () => {
    assert.strictEqual(
      QuestionTool.toModelText([{ question: "A?" }, { question: "B?" }, { question: "C?" }], [["x", "y"], []]),
      'User has answered your questions: "A?"="x, y", "B?"="Unanswered", "C?"="Unanswered". You can now continue with the user\'s answers in mind.',
    )
  })

  it.effect("never runs the executor for random undecodable input and never crashes", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const asks = yield* autoAnswer(() => ({ reply: "reject", message: "no questions now" }))
        const { settle, service } = yield* setup()
        const decodes = (input: unknown) =>
          Exit.isSuccess(Schema.decodeUnknownExit(Schema.toCodecJson(QuestionTool.Input))(input))
        const option = fc.record(
          { label: fc.oneof(fc.string(), fc.jsonValue()), description: fc.string() },
          { requiredKeys: [] },
        )
        const question = fc.record(
          {
            question: fc.oneof(fc.string(), fc.jsonValue()),
            header: fc.string({ maxLength: 40 }),
            options: fc.oneof(fc.array(option, { maxLength: 3 }), fc.jsonValue()),
            multiple: fc.oneof(fc.boolean(), fc.jsonValue()),
          },
          { requiredKeys: [] },
        )
        const input = fc.oneof(
          fc.jsonValue(),
          fc.record({ questions: fc.oneof(fc.array(question, { maxLength: 3 }), fc.jsonValue()) }),
        )
        const context = yield* Effect.context<never>()
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(input, async (value) => {
              const asksBefore = asks.length
              const exit = await Effect.runPromiseExitWith(context)(settle(value))
              if (!Exit.isSuccess(exit)) return false
              if (decodes(value)) return errorTextOrUndefined(exit.value) === "Permission denied: question"
              return (
                errorTextOrUndefined(exit.value)?.startsWith("Invalid tool input: ") === true &&
                asks.length === asksBefore
              )
            }),
            { numRuns: 60 },
          ),
        )
        assert.deepStrictEqual(yield* service.list(), [])
      }),
    ).pipe(Effect.provide(layer({ agents: { build: [{ action: "question", resource: "*", effect: "ask" }] } }))),
  )
})

function errorTextOrUndefined(settlement: { readonly result: { readonly type: string; readonly value?: unknown } }) {
  return settlement.result.type === "error" ? String(settlement.result.value) : undefined
}
