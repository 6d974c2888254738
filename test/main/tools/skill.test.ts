import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import fc from "fast-check"
import type { Config } from "@core/config/Config"
import { SkillTool } from "@main/tools/skill"
import { autoAnswer, locationTestLayer, makeSession } from "../../support/location"
import { makeTempDir } from "../../support/temp"
import { errorText, registered, resultText } from "./support/registered"

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

const skillFile = (frontMatter: string, body: string) => `---\n${frontMatter}\n---\n${body}`

// One Location with skills in all three Location roots, plus a user config directory.
const root = makeTempDir()
const directory = join(root, "project")
const deployDir = join(directory, ".gatehouse/skills/deploy")
write(
  join(deployDir, "SKILL.md"),
  skillFile("name: deploy\ndescription: Deploys the app <safely> & fast", "\n# Deploy\n\nRun scripts/run.sh.\n\n"),
)
for (const file of [".env.example", "a.txt", "reference/guide.md", "scripts/run.sh", "scripts/SKILL.md"])
  write(join(deployDir, file), file)
for (let i = 1; i <= 9; i++) write(join(deployDir, `b${i}.txt`), `b${i}`)
write(
  join(directory, ".opencode/skill/lint/SKILL.md"),
  skillFile('name: "lint"\ndescription: Lints the code', "Use eslint."),
)
write(
  join(directory, ".claude/skills/review/SKILL.md"),
  skillFile("name: review\ndescription: >\n  Reviews a change\n  line by line", "Read the diff."),
)
// The same name in a later root is hidden by the earlier one.
write(
  join(directory, ".claude/skills/other-deploy/SKILL.md"),
  skillFile("name: deploy\ndescription: shadowed", "never"),
)
// No front matter: the directory names the skill.
write(join(directory, ".claude/skills/plain/SKILL.md"), "Just instructions.\n")
// A directory without SKILL.md is not a skill.
mkdirSync(join(directory, ".claude/skills/empty"), { recursive: true })
const config = makeTempDir()
write(join(config, "gatehouse/skills/personal/SKILL.md"), skillFile("name: personal\ndescription: Mine", "My way."))
const env = { XDG_CONFIG_HOME: config }

const askEverything: Config.GatehouseConfig = {
  agents: { build: [{ action: "*", resource: "*", effect: "ask" }] },
}
const layer = (settings: Config.GatehouseConfig = askEverything) =>
  locationTestLayer({ dataDir: makeTempDir(), directory, config: settings })

const setup = Effect.gen(function* () {
  const session = yield* makeSession()
  const asks = yield* autoAnswer(() => ({ reply: "once" }))
  const { settle, definition } = yield* registered(SkillTool.name, yield* SkillTool.makeWith({ env }), session.id)
  return { session, asks, settle, definition }
})

describe("SkillTool", () => {
  it.effect("lists the available skills of the Location and the user in its description", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { definition } = yield* setup
        assert.include(
          definition.description,
          [
            "<available_skills>",
            "  <skill>",
            "    <name>deploy</name>",
            "    <description>Deploys the app &lt;safely&gt; &amp; fast</description>",
            "  </skill>",
            "  <skill>",
            "    <name>lint</name>",
            "    <description>Lints the code</description>",
            "  </skill>",
            "  <skill>",
            "    <name>plain</name>",
            "    <description></description>",
            "  </skill>",
            "  <skill>",
            "    <name>review</name>",
            "    <description>Reviews a change line by line</description>",
            "  </skill>",
            "  <skill>",
            "    <name>personal</name>",
            "    <description>Mine</description>",
            "  </skill>",
            "</available_skills>",
          ].join("\n"),
        )
        assert.notInclude(definition.description, "shadowed")
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("asks skill for the name, then returns the skill with ten sampled files, exactly as E.10", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { session, asks, settle } = yield* setup
        const settlement = yield* settle({ name: "deploy" })
        const files = [".env.example", "a.txt", ...Array.from({ length: 8 }, (_, i) => `b${i + 1}.txt`)]
        const output = [
          '<skill_content name="deploy">',
          "# Skill: deploy",
          "",
          "# Deploy\n\nRun scripts/run.sh.",
          "",
          `Base directory for this skill: ${pathToFileURL(deployDir).href}`,
          "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
          "Note: file list is sampled.",
          "",
          "<skill_files>",
          ...files.map((file) => `<file>${join(deployDir, file)}</file>`),
          "</skill_files>",
          "</skill_content>",
        ].join("\n")
        assert.strictEqual(resultText(settlement), output)
        assert.deepStrictEqual(settlement.output?.structured, {
          name: "deploy",
          directory: deployDir,
          output,
          truncated: false,
        })
        assert.deepStrictEqual(
          asks.map((ask) => [ask.action, ask.resources, ask.save, ask.sessionID]),
          [["skill", ["deploy"], ["deploy"], session.id]],
        )
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("lists the nested files of a small skill, dotfiles included and SKILL.md excluded", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { settle } = yield* setup
        const text = resultText(yield* settle({ name: "review" }))
        const reviewDir = join(directory, ".claude/skills/review")
        assert.include(text, `<skill_files>\n</skill_files>`)
        assert.include(text, `Base directory for this skill: ${pathToFileURL(reviewDir).href}`)
        write(join(reviewDir, "notes/.todo"), "x")
        write(join(reviewDir, "notes/SKILL.md"), "x")
        const again = resultText(yield* settle({ name: "review" }))
        assert.include(again, `<skill_files>\n<file>${join(reviewDir, "notes/.todo")}</file>\n</skill_files>`)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("loads a skill from the user's config directory, and one added after the tool was made", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { settle } = yield* setup
        assert.include(resultText(yield* settle({ name: "personal" })), "# Skill: personal\n\nMy way.")
        const own = makeTempDir()
        const session = yield* makeSession()
        const late = yield* registered(
          "skill_late",
          yield* SkillTool.makeWith({ env: { XDG_CONFIG_HOME: own } }),
          session.id,
        )
        assert.notInclude(late.definition.description, "<name>later</name>")
        write(join(own, "gatehouse/skills/later/SKILL.md"), skillFile("name: later", "Added later."))
        assert.include(resultText(yield* late.settle({ name: "later" })), "Added later.")
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("refuses an unknown skill without asking anything", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { settle, asks } = yield* setup
        assert.strictEqual(errorText(yield* settle({ name: "nope" })), "Unable to load skill nope")
        assert.strictEqual(errorText(yield* settle({ name: "empty" })), "Unable to load skill empty")
        assert.strictEqual(asks.length, 0)
      }),
    ).pipe(Effect.provide(layer())),
  )

  it.effect("fails a denied skill and passes a rejection's feedback to the model", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const session = yield* makeSession()
        yield* autoAnswer(() => ({ reply: "reject", message: "not this one" }))
        const { settle } = yield* registered(SkillTool.name, yield* SkillTool.makeWith({ env }), session.id)
        assert.strictEqual(errorText(yield* settle({ name: "deploy" })), "Unable to load skill deploy")
        assert.strictEqual(
          errorText(yield* settle({ name: "lint" })),
          "The user rejected permission to use this specific tool call with the following feedback: not this one",
        )
      }),
    ).pipe(
      Effect.provide(
        layer({
          agents: {
            build: [
              { action: "*", resource: "*", effect: "ask" },
              { action: "skill", resource: "deploy", effect: "deny" },
            ],
          },
        }),
      ),
    ),
  )

  it("finds the user's skills under XDG_CONFIG_HOME, else under ~/.config", () => {
    assert.strictEqual(
      SkillTool.userSkillsDirectory({ XDG_CONFIG_HOME: "/x/config" }, "/home/u"),
      "/x/config/gatehouse/skills",
    )
    assert.strictEqual(SkillTool.userSkillsDirectory({}, "/home/u"), "/home/u/.config/gatehouse/skills")
    assert.strictEqual(
      SkillTool.userSkillsDirectory({ XDG_CONFIG_HOME: "" }, "/home/u"),
      "/home/u/.config/gatehouse/skills",
    )
  })

  it.effect("uses ~/.config when XDG_CONFIG_HOME is not set", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const home = makeTempDir()
        write(
          join(home, ".config/gatehouse/skills/at-home/SKILL.md"),
          skillFile("name: at-home\ndescription: Home", "Home body."),
        )
        const session = yield* makeSession()
        yield* autoAnswer(() => ({ reply: "once" }))
        const { settle, definition } = yield* registered(
          SkillTool.name,
          yield* SkillTool.makeWith({ env: {}, home }),
          session.id,
        )
        assert.include(definition.description, "<name>at-home</name>")
        assert.notInclude(definition.description, "<name>personal</name>")
        assert.include(resultText(yield* settle({ name: "at-home" })), "Home body.")
      }),
    ).pipe(Effect.provide(layer())),
  )

  it("reads name and description from YAML front matter and keeps the body", () => {
    assert.deepStrictEqual(SkillTool.parseSkillFile("---\nname: a\ndescription: 'b: c'\n---\nbody\n"), {
      name: "a",
      description: "b: c",
      body: "body\n",
    })
    assert.deepStrictEqual(SkillTool.parseSkillFile("\uFEFF---\r\nname: crlf\r\n---\r\nbody"), {
      name: "crlf",
      body: "body",
    })
    assert.deepStrictEqual(SkillTool.parseSkillFile("---\nname: [unclosed\n---\nbody"), { body: "body" })
    assert.deepStrictEqual(SkillTool.parseSkillFile("no front matter"), { body: "no front matter" })
    assert.deepStrictEqual(SkillTool.parseSkillFile("---\nname: 42\n---\n"), { body: "" })
  })

  it.effect("never runs the executor for random undecodable input and never crashes", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { settle, asks } = yield* setup
        const decodes = (input: unknown) =>
          Exit.isSuccess(Schema.decodeUnknownExit(Schema.toCodecJson(SkillTool.Input))(input))
        const input = fc.oneof(
          fc.jsonValue(),
          fc.record(
            { name: fc.oneof(fc.constantFrom("deploy", "lint", "nope"), fc.string(), fc.jsonValue()) },
            { requiredKeys: [] },
          ),
        )
        const context = yield* Effect.context<never>()
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(input, async (value) => {
              const asksBefore = asks.length
              const exit = await Effect.runPromiseExitWith(context)(settle(value))
              if (!Exit.isSuccess(exit)) return false
              if (decodes(value)) return true
              return (
                exit.value.result.type === "error" &&
                exit.value.result.value.startsWith("Invalid tool input: ") &&
                asks.length === asksBefore
              )
            }),
            { numRuns: 60 },
          ),
        )
      }),
    ).pipe(Effect.provide(layer())),
  )
})
