import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer, Queue, Schema, Scope } from "effect"
import type { AppEvent } from "@contract/events"
import type { QuestionInfo, QuestionRequest } from "@contract/model"
import { EventBus } from "@core/events/EventBus"
import { newId } from "@core/id/Identifier"
import { Projects } from "@core/session/Projects"
import { Questions } from "@core/session/Questions"
import { Sessions } from "@core/session/Sessions"
import { Store } from "@core/store/Store"
import { sql } from "@core/store/sql"
import { coreTestLayer } from "../../../support/layers"
import { makeTempDir } from "../../../support/temp"

const layer = () => coreTestLayer({ dataDir: makeTempDir() })

const makeSession = Effect.gen(function* () {
  const projects = yield* Projects.Service
  const sessions = yield* Sessions.Service
  const project = yield* projects.ensure(makeTempDir())
  return yield* sessions.create({ projectId: project.id, agent: "build", title: "t", source: "runner" })
})

const questions: ReadonlyArray<QuestionInfo> = [
  {
    question: "Which database?",
    header: "Database",
    options: [
      { label: "SQLite", description: "One file" },
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
]

/** Every question event from now on, in order. */
const watchQuestions = Effect.gen(function* () {
  const bus = yield* EventBus.Service
  const subscription = yield* bus.subscribe(() => null)
  const events = yield* Queue.unbounded<AppEvent>()
  yield* Effect.forkScoped(
    Effect.forever(
      Effect.gen(function* () {
        for (const envelope of yield* subscription.takeBatch)
          if (envelope.event._tag.startsWith("question.")) Queue.offerUnsafe(events, envelope.event)
      }),
    ),
  )
  return events
})

const askedRequest = (events: Queue.Queue<AppEvent>) =>
  Effect.gen(function* () {
    const event = yield* Queue.take(events)
    assert.strictEqual(event._tag, "question.v2.asked")
    return (event as { readonly request: QuestionRequest }).request
  })

const Status = Schema.Struct({ status: Schema.String, answers: Schema.NullOr(Schema.String) })
const rowOf = (id: string) =>
  Effect.gen(function* () {
    const store = yield* Store.Service
    return store.get(Status, sql`SELECT status, answers FROM question WHERE id = ${id}`)
  })

const defectOf = <A, E>(exit: Exit.Exit<A, E>) => {
  assert.isTrue(Exit.isFailure(exit))
  const reason = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isDieReason) : undefined
  return reason?.defect
}

describe("Questions", () => {
  it.effect("asks with a que_ id, then resolves the waiter with the answers and records them", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const service = yield* Questions.Service
        const session = yield* makeSession
        const events = yield* watchQuestions
        const fiber = yield* Effect.forkScoped(
          service.ask({ sessionID: session.id, questions, tool: { messageID: "msg_1", callID: "call_1" } }),
        )
        const request = yield* askedRequest(events)
        assert.match(request.id, /^que_[0-9a-f]{16}[0-9A-Za-z]{12}$/)
        assert.deepStrictEqual(request, {
          id: request.id,
          sessionID: session.id,
          questions,
          tool: { messageID: "msg_1", callID: "call_1" },
        })
        assert.deepStrictEqual(yield* service.list(), [request])
        assert.deepStrictEqual(yield* service.forSession(session.id), [request])
        assert.deepStrictEqual(yield* service.forSession(newId.session()), [])
        assert.deepStrictEqual(yield* service.get(request.id), request)
        assert.deepStrictEqual(yield* rowOf(request.id), { status: "pending", answers: null })

        // Only the first answer is given: the second question counts as unanswered.
        yield* service.reply({ requestID: request.id, answers: [["SQLite"]] })
        assert.deepStrictEqual(yield* Fiber.join(fiber), [["SQLite"], []])
        assert.deepStrictEqual(yield* Queue.take(events), {
          _tag: "question.v2.replied",
          sessionID: session.id,
          requestID: request.id,
          answers: [["SQLite"], []],
        })
        assert.deepStrictEqual(yield* rowOf(request.id), { status: "answered", answers: '[["SQLite"],[]]' })
        assert.deepStrictEqual(service.listUnsafe(), [])
        const again = yield* Effect.flip(service.reply({ requestID: request.id, answers: [] }))
        assert.instanceOf(again, Questions.NotFoundError)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("makes the waiter die with RejectedError when the person dismisses the question", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const service = yield* Questions.Service
        const session = yield* makeSession
        const events = yield* watchQuestions
        const fiber = yield* Effect.forkScoped(
          // A blanket mapError, as a leaf tool would write, must not catch the dismissal.
          service.ask({ sessionID: session.id, questions }).pipe(Effect.mapError(() => "mapped")),
        )
        const request = yield* askedRequest(events)
        yield* service.reject(request.id)
        const defect = defectOf(yield* Fiber.await(fiber))
        assert.instanceOf(defect, Questions.RejectedError)
        assert.strictEqual((defect as Questions.RejectedError)._tag, "QuestionV2.RejectedError")
        assert.deepStrictEqual(yield* Queue.take(events), {
          _tag: "question.v2.rejected",
          sessionID: session.id,
          requestID: request.id,
        })
        assert.deepStrictEqual(yield* rowOf(request.id), { status: "rejected", answers: null })
        assert.instanceOf(yield* Effect.flip(service.reject(request.id)), Questions.NotFoundError)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("withdraws the question when its waiter is interrupted", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const service = yield* Questions.Service
        const session = yield* makeSession
        const events = yield* watchQuestions
        const fiber = yield* Effect.forkScoped(service.ask({ sessionID: session.id, questions }))
        const request = yield* askedRequest(events)
        yield* Fiber.interrupt(fiber)
        assert.deepStrictEqual(yield* Queue.take(events), {
          _tag: "question.v2.withdrawn",
          sessionID: session.id,
          requestID: request.id,
        })
        assert.deepStrictEqual(yield* rowOf(request.id), { status: "interrupted", answers: null })
        assert.deepStrictEqual(yield* service.list(), [])
        assert.instanceOf(
          yield* Effect.flip(service.reply({ requestID: request.id, answers: [["SQLite"]] })),
          Questions.NotFoundError,
        )
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("refuses answers that do not fit the questions and keeps the question open", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const service = yield* Questions.Service
        const session = yield* makeSession
        const events = yield* watchQuestions
        const fiber = yield* Effect.forkScoped(service.ask({ sessionID: session.id, questions }))
        const request = yield* askedRequest(events)
        const tooMany = yield* Effect.flip(service.reply({ requestID: request.id, answers: [[], [], []] }))
        assert.instanceOf(tooMany, Questions.InvalidReplyError)
        assert.strictEqual(tooMany.message, `Invalid answers for question ${request.id}: 3 answers for 2 question(s)`)
        const single = yield* Effect.flip(service.reply({ requestID: request.id, answers: [["SQLite", "Postgres"]] }))
        assert.strictEqual(
          single.message,
          `Invalid answers for question ${request.id}: question 1 allows one answer, got 2`,
        )
        assert.deepStrictEqual(yield* service.list(), [request])
        yield* service.reply({ requestID: request.id, answers: [[], ["Lint", "Types"]] })
        assert.deepStrictEqual(yield* Fiber.join(fiber), [[], ["Lint", "Types"]])
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("fails with Sessions.NotFoundError for an unknown session and records nothing", () =>
    Effect.gen(function* () {
      const service = yield* Questions.Service
      const bus = yield* EventBus.Service
      const store = yield* Store.Service
      const before = bus.sequence()
      const error = yield* Effect.flip(service.ask({ sessionID: newId.session(), questions }))
      assert.instanceOf(error, Sessions.NotFoundError)
      assert.strictEqual(bus.sequence(), before)
      assert.strictEqual(store.get(Schema.Struct({ n: Schema.Number }), sql`SELECT count(*) AS n FROM question`)?.n, 0)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("closing the service withdraws open questions, kills their waiters and refuses later asks", () =>
    Effect.gen(function* () {
      const database = join(makeTempDir(), "gatehouse.db")
      const dataDir = makeTempDir()
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(coreTestLayer({ dataDir, database }), scope)
      const run = <A, E>(effect: Effect.Effect<A, E, Layer.Success<ReturnType<typeof coreTestLayer>> | Scope.Scope>) =>
        effect.pipe(Effect.scoped, Effect.provide(context))
      const { fiber, request, service } = yield* run(
        Effect.gen(function* () {
          const service = yield* Questions.Service
          const session = yield* makeSession
          const events = yield* watchQuestions
          const fiber = yield* Effect.forkDetach(service.ask({ sessionID: session.id, questions }))
          const request = yield* askedRequest(events)
          return { fiber, request, service }
        }),
      )
      yield* Scope.close(scope, Exit.void)
      assert.instanceOf(defectOf(yield* Fiber.await(fiber)), Questions.RejectedError)
      assert.deepStrictEqual(service.listUnsafe(), [])
      const late = yield* Effect.exit(service.ask({ sessionID: request.sessionID, questions }))
      assert.instanceOf(defectOf(late), Questions.RejectedError)

      // The withdrawal was committed: a new process finds nothing pending.
      const reopened = yield* Effect.scoped(
        Effect.gen(function* () {
          const service = yield* Questions.Service
          return { service, row: yield* rowOf(request.id) }
        }).pipe(Effect.provide(coreTestLayer({ dataDir, database }))),
      )
      assert.deepStrictEqual(reopened.row, { status: "interrupted", answers: null })
      assert.deepStrictEqual(reopened.service.interruptedAtStart, [])
    }),
  )

  it.effect("marks questions a crashed process left pending as interrupted when it starts", () =>
    Effect.gen(function* () {
      const database = join(makeTempDir(), "gatehouse.db")
      const dataDir = makeTempDir()
      const crashed = yield* Effect.scoped(
        Effect.gen(function* () {
          const store = yield* Store.Service
          const session = yield* makeSession
          // What a process killed mid-question leaves behind: a pending row without a waiter.
          const id = newId.question()
          store.run(
            sql`INSERT INTO question (id, session_id, questions, status, created_at)
                VALUES (${id}, ${session.id}, ${JSON.stringify(questions)}, 'pending', 1)`,
          )
          return id
        }).pipe(Effect.provide(coreTestLayer({ dataDir, database }))),
      )
      const restarted = yield* Effect.scoped(
        Effect.gen(function* () {
          const service = yield* Questions.Service
          return { interrupted: service.interruptedAtStart, row: yield* rowOf(crashed), pending: yield* service.list() }
        }).pipe(Effect.provide(coreTestLayer({ dataDir, database }))),
      )
      assert.deepStrictEqual(restarted, {
        interrupted: [crashed],
        row: { status: "interrupted", answers: null },
        pending: [],
      })
    }),
  )
})
