import { mkdirSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Agents } from "@core/session/Agents"
import { coreTestLayer } from "../../../support/layers"
import { makeTempDir } from "../../../support/temp"

const r = (action: string, resource: string, effect: "allow" | "deny" | "ask") => ({ action, resource, effect })

describe("Agents", () => {
  const data = makeTempDir()
  const tmp = makeTempDir()
  const builtins = Agents.builtins(data, tmp)
  const defaults = [
    r("*", "*", "allow"),
    r("external_directory", "*", "ask"),
    r("external_directory", `${data}/tool-output/*`, "allow"),
    r("external_directory", `${tmp}/*`, "allow"),
    r("question", "*", "deny"),
    r("read", "*", "allow"),
    r("read", "*.env", "ask"),
    r("read", "*.env.*", "ask"),
    r("read", "*.env.example", "allow"),
  ]

  it("defines the built-in agents of D.10 with build as the default", () => {
    assert.strictEqual(Agents.DEFAULT_AGENT, "build")
    assert.deepStrictEqual(
      builtins.map((a) => [a.name, a.mode, a.hidden]),
      [
        ["build", "primary", false],
        ["plan", "primary", false],
        ["general", "subagent", false],
        ["explore", "subagent", false],
        ["compaction", "primary", true],
        ["title", "primary", true],
        ["summary", "primary", true],
      ],
    )
    const agents = Agents.make(builtins)
    assert.strictEqual(
      agents.get("build")!.description,
      "The default agent. Executes tools based on configured permissions.",
    )
    assert.deepStrictEqual(agents.get("build")!.rules, [...defaults, r("question", "*", "allow")])
    assert.deepStrictEqual(agents.get("general")!.rules, [...defaults, r("todowrite", "*", "deny")])
    assert.deepStrictEqual(agents.get("explore")!.rules, [
      ...defaults,
      r("*", "*", "deny"),
      r("grep", "*", "allow"),
      r("glob", "*", "allow"),
      r("webfetch", "*", "allow"),
      r("websearch", "*", "allow"),
      r("read", "*", "allow"),
      ...defaults.slice(1, 4),
    ])
    for (const name of ["compaction", "title", "summary"])
      assert.deepStrictEqual(agents.get(name)!.rules, [...defaults, r("*", "*", "deny")])
    assert.isUndefined(agents.get("nobody"))
  })

  it("gives plan its edit rules, including the data directory's plans relative to the Location", () => {
    const agents = Agents.make(builtins)
    const planRules = [
      ...defaults,
      r("question", "*", "allow"),
      r("plan_exit", "*", "allow"),
      r("external_directory", `${data}/plans/*`, "allow"),
      r("edit", "*", "deny"),
      r("edit", ".opencode/plans/*.md", "allow"),
    ]
    assert.deepStrictEqual(agents.get("plan")!.rules, planRules)
    const project = makeTempDir()
    const located = agents.get("plan", project)!.rules
    assert.deepStrictEqual(located.slice(0, -1), planRules)
    assert.strictEqual(located.at(-1)!.resource.endsWith(`${data.split("/").at(-1)}/plans/*.md`), true)
    assert.match(located.at(-1)!.resource, /^(\.\.\/)+/)
    assert.deepStrictEqual(agents.get("build", project)!.rules, agents.get("build")!.rules)
  })

  it("names the data and temp directories by their real paths", () => {
    const root = makeTempDir()
    mkdirSync(join(root, "real"))
    symlinkSync(join(root, "real"), join(root, "alias"))
    const rules = Agents.make(Agents.builtins(join(root, "alias"), tmp)).get("build")!.rules
    assert.deepInclude(rules, r("external_directory", `${root}/real/tool-output/*`, "allow"))
  })

  it.effect("appends configured rules to a built-in, and defines new agents from config", () =>
    Effect.gen(function* () {
      const agents = yield* Agents.Service
      const build = agents.get("build")!
      assert.deepStrictEqual(build.rules.slice(-2), [r("question", "*", "allow"), r("bash", "rm *", "deny")])
      const general = agents.get("general")!
      assert.strictEqual(general.description, "Does the chores")
      assert.strictEqual(general.steps, 5)
      assert.deepStrictEqual(general.rules.slice(-1), [r("todowrite", "*", "deny")])
      const reviewer = agents.get("reviewer")!
      assert.deepInclude(reviewer, { name: "reviewer", mode: "subagent", description: "Reads only", hidden: false })
      assert.deepStrictEqual(reviewer.rules, [r("*", "*", "deny"), r("read", "*", "allow")])
      assert.deepStrictEqual(agents.get("bare")!.rules, [])
      assert.deepStrictEqual(
        agents.list().map((a) => a.name),
        ["build", "plan", "general", "explore", "compaction", "title", "summary", "bare", "reviewer"],
      )
    }).pipe(
      Effect.provide(
        coreTestLayer({
          dataDir: makeTempDir(),
          config: {
            agents: {
              build: [r("bash", "rm *", "deny")],
              general: { description: "Does the chores", steps: 5 },
              reviewer: {
                description: "Reads only",
                mode: "subagent",
                permission: [r("*", "*", "deny"), r("read", "*", "allow")],
              },
              bare: [],
            },
          },
        }),
      ),
    ),
  )
})
