import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Provider } from "@core/session/provider/Provider"
import { Providers } from "@core/session/provider/Providers"
import { completion, jsonReply, openAIServer } from "../../../../support/openai-server"
import { tempDir } from "../../../../support/temp"

const request: Provider.Request = { messages: [{ role: "user", text: "hi" }], tools: [], toolChoice: "auto" }

describe("Providers", () => {
  it.effect("builds each configured provider by its type under its configured name", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      writeFileSync(join(dir, "demo.jsonl"), `{ "text": "scripted hello" }\n`)
      const server = yield* openAIServer()
      server.enqueue(jsonReply(completion({ text: "served hello" })))
      const config = {
        providers: {
          demo: { type: "scripted" as const, script: "demo.jsonl" },
          local: { type: "openai-compatible" as const, base_url: server.baseUrl, model: "test-model" },
        },
      }
      const demo = yield* Providers.named(config, "demo", { directory: dir })
      const local = yield* Providers.named(config, "local")
      assert.deepStrictEqual([demo.name, local.name], ["demo", "local"])
      assert.strictEqual((yield* demo.turn(request)).text, "scripted hello")
      assert.strictEqual((yield* local.turn(request)).text, "served hello")
    }),
  )

  it.effect("names the configured providers when the requested one does not exist", () =>
    Effect.gen(function* () {
      const config = { providers: { demo: { type: "scripted" as const, script: "x.jsonl" } } }
      const unknown = yield* Effect.flip(Providers.named(config, "openai"))
      assert.instanceOf(unknown, Provider.ConfigError)
      assert.strictEqual(
        unknown.message,
        "Cannot use provider openai: config.jsonc has no provider of that name (configured: demo)",
      )
      const none = yield* Effect.flip(Providers.named({}, "toString"))
      assert.strictEqual(none.message, "Cannot use provider toString: config.jsonc configures no providers")
    }),
  )
})
