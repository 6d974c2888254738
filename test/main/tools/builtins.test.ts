import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Agents } from "@core/session/Agents"
import { Locations } from "@core/location/Locations"
import { Projects } from "@core/session/Projects"
import { Builtins } from "@main/tools/builtins"
import { coreTestLayer } from "../../support/layers"
import { makeTempDir } from "../../support/temp"

const setup = (config = {}) => {
  const directory = join(makeTempDir(), "project")
  mkdirSync(directory)
  const layer = Locations.layer({ plugins: Builtins.layer }).pipe(
    Layer.provideMerge(coreTestLayer({ dataDir: makeTempDir(), config })),
  )
  return { directory, layer }
}

/** The names an agent's provider turn would be offered in the project at `directory`. */
const catalog = (directory: string, agent: string) =>
  Effect.gen(function* () {
    const projects = yield* Projects.Service
    const locations = yield* Locations.Service
    const agents = yield* Agents.Service
    const project = yield* projects.ensure(directory)
    const handle = yield* locations.acquire(project.id)
    const turn = yield* handle.registry.materialize(agents.get(agent, project.directory)?.rules ?? [])
    return turn.definitions.map((definition) => definition.name)
  })

describe("Builtins", () => {
  it.effect("registers the twelve built-in tools into every Location, in the seed's order", () => {
    const { directory, layer } = setup()
    return Effect.scoped(
      Effect.gen(function* () {
        assert.deepStrictEqual(yield* catalog(directory, "build"), [
          "read",
          "write",
          "edit",
          "apply_patch",
          "bash",
          "glob",
          "grep",
          "webfetch",
          "websearch",
          "skill",
          "todowrite",
          "question",
        ])
      }),
    ).pipe(Effect.provide(layer))
  })

  it.effect("hides the mutation tools together under `edit * deny` and follows each agent's catalog", () => {
    const { directory, layer } = setup({
      agents: { reviewer: [{ action: "edit", resource: "*", effect: "deny" }] },
    })
    return Effect.scoped(
      Effect.gen(function* () {
        const reviewer = yield* catalog(directory, "reviewer")
        for (const hidden of ["write", "edit", "apply_patch"]) assert.notInclude(reviewer, hidden)
        assert.include(reviewer, "read")
        // plan denies edits but its last edit rule allows plan files, so edit stays visible
        // (catalog hiding needs a last `* deny`; authorization still denies other paths).
        assert.include(yield* catalog(directory, "plan"), "edit")
        // explore allows only reading and searching; general hides todowrite and question.
        assert.deepStrictEqual(yield* catalog(directory, "explore"), ["read", "glob", "grep", "webfetch", "websearch"])
        const general = yield* catalog(directory, "general")
        assert.notInclude(general, "todowrite")
        assert.notInclude(general, "question")
      }),
    ).pipe(Effect.provide(layer))
  })

  it("gives every built-in a description and an object input schema for the model", async () => {
    const { directory, layer } = setup()
    const definitions = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const projects = yield* Projects.Service
          const locations = yield* Locations.Service
          const handle = yield* locations.acquire((yield* projects.ensure(directory)).id)
          return (yield* handle.registry.materialize([])).definitions
        }),
      ).pipe(Effect.provide(layer)),
    )
    for (const definition of definitions) {
      assert.isAbove(definition.description.length, 20, definition.name)
      assert.strictEqual(definition.inputSchema.type, "object", definition.name)
    }
    const bash = definitions.find((definition) => definition.name === "bash")!
    assert.include(
      bash.description,
      "Bash is not sandboxed: the spawned shell runs with the host user's filesystem, process, and network authority.",
    )
  })
})
