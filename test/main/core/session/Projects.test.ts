import { mkdirSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { EventBus } from "@core/events/EventBus"
import { Projects } from "@core/session/Projects"
import { coreTestLayer } from "../../../support/layers"
import { makeTempDir } from "../../../support/temp"

const dataDir = makeTempDir()

describe("Projects", () => {
  it.effect("creates one project per canonical directory and announces it once", () =>
    Effect.gen(function* () {
      const root = makeTempDir()
      mkdirSync(join(root, "repo"))
      symlinkSync(join(root, "repo"), join(root, "alias"))
      const projects = yield* Projects.Service
      const bus = yield* EventBus.Service
      const first = yield* projects.ensure(join(root, "repo"))
      const second = yield* projects.ensure(join(root, "alias"))
      assert.strictEqual(first.id, second.id)
      assert.strictEqual(first.directory, join(root, "repo"))
      assert.strictEqual(bus.sequence(), 1)
    }).pipe(Effect.provide(coreTestLayer({ dataDir }))),
  )

  it.effect("refuses relative, missing and non-directory paths with the reason", () =>
    Effect.gen(function* () {
      const projects = yield* Projects.Service
      const relative = yield* Effect.flip(projects.ensure("some/dir"))
      assert.strictEqual(relative.message, "Cannot use some/dir as a project: the path must be absolute")
      const missing = yield* Effect.flip(projects.ensure("/definitely/not/here"))
      assert.strictEqual(missing.message, "Cannot use /definitely/not/here as a project: it does not exist")
    }).pipe(Effect.provide(coreTestLayer({ dataDir }))),
  )

  it.effect("keeps another machine's directory as its own project, apart from the same local path", () =>
    Effect.gen(function* () {
      const root = makeTempDir()
      const projects = yield* Projects.Service
      const local = yield* projects.ensure(root)
      const remote = yield* projects.ensureRemote("devbox", `${root}/`)
      const again = yield* projects.ensureRemote("devbox", root)
      assert.notStrictEqual(remote.id, local.id)
      assert.strictEqual(again.id, remote.id)
      assert.strictEqual(remote.directory, `devbox:${root}`)
      const windows = yield* projects.ensureRemote("winbox", "C:\\work\\app")
      assert.strictEqual(windows.name, "app")
      const relative = yield* Effect.flip(projects.ensureRemote("devbox", "work/app"))
      assert.strictEqual(relative.message, "Cannot use work/app as a project: the path must be absolute")
    }).pipe(Effect.provide(coreTestLayer({ dataDir }))),
  )
})
