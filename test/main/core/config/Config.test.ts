import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { Config } from "@core/config/Config"
import { DataDir } from "@core/config/DataDir"
import { makeTempDir } from "../../../support/temp"

const invalid = (text: string) => {
  const error = assert.throws(
    () => Config.parseText("/data/config.jsonc", text),
    Config.InvalidError,
  ) as unknown as Config.InvalidError
  return error.message
}

describe("Config", () => {
  it("accepts JSONC with comments and trailing commas and keeps every key optional", () => {
    const config = Config.parseText(
      "/data/config.jsonc",
      `{
        // tighter previews
        "tool_output": { "max_lines": 100, },
        "shell": "/bin/bash",
        "agents": { "build": [{ "action": "bash", "resource": "git status", "effect": "allow" }],
                    "reviewer": { "description": "reads only", "steps": 5, "permission": [] } },
        "attachments": { "image": { "auto_resize": false } },
        "providers": { "local": { "type": "openai-compatible", "base_url": "http://127.0.0.1:11434/v1", "model": "qwen" } },
        "server": { "port": 4100 },
        "connectors": { "opencode": [{ "url": "http://127.0.0.1:4096" }] },
      }`,
    )
    assert.strictEqual(config.tool_output?.max_lines, 100)
    assert.strictEqual(config.shell, "/bin/bash")
    assert.deepStrictEqual(Config.parseText("/data/config.jsonc", "{}"), {})
    assert.deepStrictEqual(Config.parseText("/data/config.jsonc", "// nothing yet\n"), {})
  })

  it("names the file, the key path and the reason for a value of the wrong shape", () => {
    assert.strictEqual(
      invalid(`{ "tool_output": { "max_lines": -1 } }`),
      "Invalid configuration in /data/config.jsonc at tool_output.max_lines: Expected a value greater than 0, got -1",
    )
    assert.strictEqual(
      invalid(`{ "agents": { "build": [{ "action": "bash", "resource": "*", "effect": "maybe" }] } }`),
      `Invalid configuration in /data/config.jsonc at agents.build[0].effect: Expected "allow" | "deny" | "ask", got "maybe"`,
    )
    assert.strictEqual(
      invalid(`{ "server": { "host": "0.0.0.0" } }`),
      `Invalid configuration in /data/config.jsonc at server.host: Expected "127.0.0.1", got "0.0.0.0"`,
    )
  })

  it("reports unknown keys instead of silently ignoring a typo", () => {
    assert.strictEqual(
      invalid(`{ "tool_outptu": { "max_lines": 10 } }`),
      "Invalid configuration in /data/config.jsonc at tool_outptu: Expected no unknown key",
    )
  })

  it("reports JSON syntax errors with line and column", () => {
    assert.strictEqual(
      invalid(`{\n  "shell": "/bin/sh"\n  "tool_output": {}\n}`),
      "Invalid configuration in /data/config.jsonc at line 3, column 3: CommaExpected",
    )
  })

  it("reads GATEHOUSE_CONFIG when set, else config.jsonc in the data directory", () => {
    assert.strictEqual(Config.resolveFile("/data", {}), join("/data", "config.jsonc"))
    assert.strictEqual(Config.resolveFile("/data", { GATEHOUSE_CONFIG: "/etc/gh.jsonc" }), "/etc/gh.jsonc")
  })

  it.effect("uses every default when the file does not exist and fails start-up on a broken file", () =>
    Effect.gen(function* () {
      const dir = makeTempDir()
      const missing = yield* Config.Service.pipe(Effect.provide(Config.layer({})), Effect.provide(DataDir.layer(dir)))
      assert.deepStrictEqual(missing.config, {})
      writeFileSync(join(dir, "config.jsonc"), `{ "shell": 42 }`)
      const broken = yield* Effect.exit(
        Config.Service.pipe(Effect.provide(Config.layer({})), Effect.provide(DataDir.layer(dir))),
      )
      assert.isTrue(Exit.isFailure(broken))
      if (Exit.isFailure(broken)) assert.include(String(broken.cause), `config.jsonc at shell: Expected string, got 42`)
    }),
  )
})
