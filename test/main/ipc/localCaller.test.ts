import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { handlers, type HandlerServices } from "@main/ipc/handlers"
import { localCaller } from "@main/ipc/localCaller"
import { newId } from "@core/id/Identifier"
import { contractTestLayer } from "./contract"

describe("localCaller", () => {
  it.effect("calls a method in-process through the same codecs, returning the decoded success", () =>
    Effect.gen(function* () {
      const context = yield* Effect.context<HandlerServices>()
      const call = localCaller(handlers, Effect.runPromiseWith(context))
      const info = yield* Effect.promise(() => call("app.info", undefined))
      assert.strictEqual(info.name, "Gatehouse")
      const error = yield* Effect.promise(() =>
        call("permission.reply", { requestID: newId.permissionRequest(), reply: "once" }).then(
          () => undefined,
          (thrown: unknown) => thrown as { readonly _tag: string },
        ),
      )
      assert.strictEqual(error?._tag, "PermissionV2.NotFoundError")
    }).pipe(Effect.provide(contractTestLayer())),
  )
})
