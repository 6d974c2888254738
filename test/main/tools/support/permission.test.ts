import { join } from "node:path"
import { mkdirSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { LocationMutation } from "@core/location/LocationMutation"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { assertAction, assertExternal } from "@main/tools/support/permission"
import { autoAnswer, locationTestLayer, makeSession } from "../../../support/location"
import { makeTempDir } from "../../../support/temp"

const root = makeTempDir()
const directory = join(root, "project")
const outside = join(root, "elsewhere")
mkdirSync(directory)
mkdirSync(outside)
// Temp directories sit under the system tmp dir, which the built-in agents allow: ask for everything.
const config = { agents: { build: [{ action: "*", resource: "*", effect: "ask" as const }] } }

describe("tools/support/permission", () => {
  it.effect("asks external_directory for an outside target before the action, with the call as its source", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* makeSession()
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const permission = yield* PermissionV2.Service
        const mutation = yield* LocationMutation.Service
        const context = { sessionID: session.id, agent: "build", assistantMessageID: "msg_1", toolCallID: "call_1" }
        const target = yield* mutation.resolve({ path: join(outside, "notes.txt"), kind: "file" })
        yield* assertExternal(permission, context, target)
        yield* assertAction(permission, context, { action: "edit", resources: [target.resource], save: ["*"] })
        assert.deepStrictEqual(
          asked.map((ask) => [ask.action, ask.resources, ask.save, ask.source]),
          [
            [
              "external_directory",
              [`${outside}/*`],
              [`${outside}/*`],
              { type: "tool", messageID: "msg_1", callID: "call_1" },
            ],
            ["edit", [`${outside}/notes.txt`], ["*"], { type: "tool", messageID: "msg_1", callID: "call_1" }],
          ],
        )
      }),
    ).pipe(Effect.provide(locationTestLayer({ dataDir: makeTempDir(), directory, config }))),
  )

  it.effect("asks nothing extra for a target inside the Location", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* makeSession()
        const asked = yield* autoAnswer(() => ({ reply: "once" }))
        const permission = yield* PermissionV2.Service
        const mutation = yield* LocationMutation.Service
        const context = { sessionID: session.id, agent: "build", assistantMessageID: "m", toolCallID: "c" }
        const target = yield* mutation.resolve({ path: "src/new.ts", kind: "file" })
        yield* assertExternal(permission, context, target)
        assert.strictEqual(asked.length, 0)
        assert.strictEqual(target.resource, "src/new.ts")
      }),
    ).pipe(Effect.provide(locationTestLayer({ dataDir: makeTempDir(), directory, config }))),
  )
})
