import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { PermissionRequest } from "@contract/model"
import { connect } from "@main/cli/client"
import { createSampleProject, demoConfig, REVIEWER, startDemo, writeDemoConfig } from "@main/demo/Demo"
import { startHeadless } from "@main/web/Headless"
import { makeTempDir } from "../../support/temp"
import { makeRendererDir } from "../web/http"

describe("Demo", () => {
  it("starts three scripted sessions whose asks wait in the inbox within seconds", async () => {
    const dataDir = makeTempDir()
    assert.isTrue(writeDemoConfig(dataDir, {}))
    const host = await startHeadless({ dataDir, port: 0, env: {}, rendererDir: makeRendererDir(makeTempDir()) })
    const client = await connect({ ...host, pid: process.pid })
    const started = Date.now()
    try {
      const asks = new Map<string, PermissionRequest>()
      let wake = () => undefined as void
      client.onEvent(({ event }) => {
        if (event._tag === "permission.v2.asked" && !asks.has(event.request.sessionID)) {
          asks.set(event.request.sessionID, event.request)
          wake()
        }
      })
      const demo = await startDemo({ dataDir, directory: join(makeTempDir(), "sample"), call: client.call })
      assert.deepStrictEqual(
        demo.sessions.map((session) => [session.agent, session.source, session.status]),
        [
          ["build", "runner", "running"],
          ["plan", "runner", "running"],
          [REVIEWER, "runner", "running"],
        ],
      )
      assert.deepStrictEqual(demo.notes, [])
      while (asks.size < 3) await new Promise<void>((resolve) => (wake = resolve))
      assert.isBelow(Date.now() - started, 10_000)

      const bySession = new Map(demo.sessions.map((session) => [session.id, session.agent]))
      const first = [...asks.values()].map((ask) => [bySession.get(ask.sessionID), ask.action, ask.resources[0]])
      assert.sameDeepMembers(first, [
        ["build", "edit", "src/greet.js"],
        ["plan", "read", ".env"],
        [REVIEWER, "webfetch", demo.pageUrl],
      ])
      const snapshot = await client.call("app.snapshot", undefined)
      assert.includeMembers(
        snapshot.asks.map((ask) => ask.request.id),
        [...asks.values()].map((ask) => ask.id),
      )
      assert.includeMembers(
        snapshot.sessions.filter((session) => bySession.has(session.id)).map((session) => session.status),
        ["blocked"],
      )
      assert.include(readFileSync(join(demo.directory, "src", "greet.js"), "utf8"), '"Helo, "')
      assert.include(readFileSync(join(dataDir, "demo", "review.jsonl"), "utf8"), demo.pageUrl)
      await demo.close()
    } finally {
      client.close()
      await host.close()
    }
  })

  it("never overwrites a directory that holds something else, nor an existing configuration", () => {
    const occupied = makeTempDir()
    writeFileSync(join(occupied, "important.txt"), "keep me")
    assert.throws(() => createSampleProject(occupied), /is not empty/)
    assert.isFalse(existsSync(join(occupied, "src")))

    const again = createSampleProject(join(makeTempDir(), "new", "project"))
    writeFileSync(join(again, "src", "greet.js"), "changed")
    assert.strictEqual(createSampleProject(again), again)
    assert.include(readFileSync(join(again, "src", "greet.js"), "utf8"), '"Helo, "')

    const dataDir = makeTempDir()
    writeFileSync(join(dataDir, "config.jsonc"), "{}")
    assert.isFalse(writeDemoConfig(dataDir, {}))
    assert.strictEqual(readFileSync(join(dataDir, "config.jsonc"), "utf8"), "{}")
    const elsewhere = makeTempDir()
    mkdirSync(join(elsewhere, "cfg"))
    assert.isFalse(writeDemoConfig(elsewhere, { GATEHOUSE_CONFIG: join(elsewhere, "cfg", "config.jsonc") }))
    assert.isFalse(existsSync(join(elsewhere, "config.jsonc")))
    assert.isTrue(writeDemoConfig(makeTempDir(), {}))
    assert.include(demoConfig, `"${REVIEWER}"`)
  })
})
