import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, ManagedRuntime } from "effect"
import { Location } from "@core/location/Location"
import { DecisionLog } from "@core/permission/DecisionLog"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Store } from "@core/store/Store"
import { makeTempDir } from "../../../support/temp"
import { newSession, permissionTestLayer } from "./support"

describe("DecisionLog", () => {
  it("marks asks a crashed process left pending as interrupted when the next process starts, keeping decided ones", async () => {
    const database = join(makeTempDir(), "gatehouse.db")
    const directory = makeTempDir()
    const options = { database, directory, config: { agents: { tester: [] } } }
    const first = ManagedRuntime.make(permissionTestLayer(options))
    const asked = await first.runPromise(
      Effect.gen(function* () {
        const permission = yield* PermissionV2.Service
        const session = yield* newSession()
        const a = yield* permission.ask({ sessionID: session.id, action: "bash", resources: ["ls"] })
        const b = yield* permission.ask({ sessionID: session.id, action: "bash", resources: ["pwd"] })
        yield* permission.reply({ requestID: a.id, reply: "once" })
        const store = yield* Store.Service
        // The process dies: no finalizer runs, the waiters vanish with it.
        store.raw.close()
        return { a: a.id, b: b.id }
      }),
    )

    const second = ManagedRuntime.make(permissionTestLayer(options))
    try {
      await second.runPromise(
        Effect.gen(function* () {
          const log = yield* DecisionLog.Service
          assert.deepStrictEqual(log.interruptedAtStart, [asked.b])
          assert.deepInclude((yield* log.get(asked.b))!, { status: "interrupted", decidedBy: "system" })
          assert.deepInclude((yield* log.get(asked.a))!, { status: "once", decidedBy: "person" })
          assert.lengthOf(yield* log.list({ status: "pending" }), 0)
          const permission = yield* PermissionV2.Service
          assert.lengthOf(yield* permission.list(), 0)
        }),
      )
    } finally {
      await second.dispose()
    }
  })

  it.effect("records the request, its source and agent, and lists newest first with filters", () =>
    Effect.gen(function* () {
      const permission = yield* PermissionV2.Service
      const log = yield* DecisionLog.Service
      const { projectId } = yield* Location.Service
      const session = yield* newSession()
      const other = yield* newSession()
      const first = yield* permission.ask({
        sessionID: session.id,
        action: "edit",
        resources: ["a.ts", "b.ts"],
        save: ["*"],
        metadata: { diff: "+x" },
        source: { type: "tool", messageID: "msg_1", callID: "call_1" },
      })
      const second = yield* permission.ask({ sessionID: other.id, action: "bash", resources: ["ls"], agent: "tester" })
      yield* permission.reply({ requestID: second.id, reply: "reject", message: "not now" })
      const row = (yield* log.get(first.id))!
      assert.deepStrictEqual(
        { ...row, createdAt: 0 },
        {
          id: first.id,
          sessionID: session.id,
          projectID: projectId,
          action: "edit",
          resources: ["a.ts", "b.ts"],
          save: ["*"],
          metadata: { diff: "+x" },
          source: { type: "tool", messageID: "msg_1", callID: "call_1" },
          agent: "tester",
          status: "pending",
          decidedBy: null,
          approvalIDs: null,
          feedback: null,
          createdAt: 0,
          decidedAt: null,
        },
      )
      assert.deepStrictEqual(
        (yield* log.list()).map((r) => r.id),
        [second.id, first.id],
      )
      assert.deepStrictEqual(
        (yield* log.list({ sessionID: other.id })).map((r) => r.id),
        [second.id],
      )
      assert.deepStrictEqual(
        (yield* log.list({ status: "corrected", projectID: projectId })).map((r) => r.feedback),
        ["not now"],
      )
      assert.deepStrictEqual(
        (yield* log.list({ limit: 1 })).map((r) => r.id),
        [second.id],
      )
    }).pipe(Effect.provide(permissionTestLayer({ config: { agents: { tester: [] } } }))),
  )
})
