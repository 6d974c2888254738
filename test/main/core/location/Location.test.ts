import { mkdirSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Location } from "@core/location/Location"
import { Projects } from "@core/session/Projects"
import { coreTestLayer } from "../../../support/layers"
import { makeTempDir } from "../../../support/temp"

describe("Location", () => {
  const root = makeTempDir()
  mkdirSync(join(root, "repo"))
  symlinkSync(join(root, "repo"), join(root, "alias"))

  it.effect("is the project of a directory, keyed and named by its canonical path", () =>
    Effect.gen(function* () {
      const location = yield* Location.Service
      const projects = yield* Projects.Service
      assert.strictEqual(location.directory, join(root, "repo"))
      const project = yield* projects.get(location.projectId)
      assert.strictEqual(project?.directory, join(root, "repo"))
    }).pipe(
      Effect.provide(
        Location.layerFromDirectory(join(root, "alias")).pipe(
          Layer.provideMerge(coreTestLayer({ dataDir: makeTempDir() })),
        ),
      ),
    ),
  )

  it.effect("refuses a directory that cannot be a project", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Layer.build(Location.layerFromDirectory(join(root, "missing"))).pipe(
          Effect.provide(coreTestLayer({ dataDir: makeTempDir() })),
        ),
      )
      assert.instanceOf(error, Projects.InvalidDirectoryError)
    }),
  )
})
