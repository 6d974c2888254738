import { mkdirSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { candidateDataDirs, electronUserData, findRunning } from "@main/ingress/discovery"
import { makeTempDir } from "../../support/temp"
import { startHost, type Host } from "./support"

const hosts: Array<Host> = []
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()))
})

/** A port nothing listens on (bound, read, released). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

describe("discovery", () => {
  it("looks only in GATEHOUSE_DATA_DIR when it is set, else in the headless and the app directories", () => {
    assert.deepStrictEqual(candidateDataDirs({ env: { GATEHOUSE_DATA_DIR: "/data/gh" }, home: "/home/me" }), [
      "/data/gh",
    ])
    assert.deepStrictEqual(candidateDataDirs({ env: {}, platform: "linux", home: "/home/me" }), [
      "/home/me/.local/share/gatehouse",
      "/home/me/.config/gatehouse",
    ])
    assert.strictEqual(
      electronUserData({ env: {}, platform: "darwin", home: "/Users/me" }),
      "/Users/me/Library/Application Support/gatehouse",
    )
    assert.strictEqual(
      electronUserData({
        env: { APPDATA: "C:\\Users\\me\\AppData\\Roaming" },
        platform: "win32",
        home: "C:\\Users\\me",
      }),
      join("C:\\Users\\me\\AppData\\Roaming", "gatehouse"),
    )
    assert.strictEqual(electronUserData({ env: { XDG_CONFIG_HOME: "/cfg" }, platform: "linux" }), "/cfg/gatehouse")
  })

  it("finds a running host with its url and agent token", async () => {
    const host = await startHost()
    hosts.push(host)
    const found = await findRunning({ env: { GATEHOUSE_DATA_DIR: host.dataDir } })
    assert.deepStrictEqual(found, {
      _tag: "running",
      running: { dataDir: host.dataDir, url: host.url, agentToken: host.agentToken },
    })
  })

  it("reports a server.json whose server is gone, or none at all, as not running", async () => {
    const dataDir = makeTempDir()
    const missing = await findRunning({ env: { GATEHOUSE_DATA_DIR: dataDir } })
    assert.strictEqual(missing._tag, "notRunning")
    mkdirSync(dataDir, { recursive: true })
    const port = await freePort()
    writeFileSync(join(dataDir, "server.json"), JSON.stringify({ url: `http://127.0.0.1:${port}`, port, pid: 1 }))
    const stale = await findRunning({ env: { GATEHOUSE_DATA_DIR: dataDir } })
    assert.strictEqual(stale._tag, "notRunning")
    if (stale._tag === "notRunning") assert.include(stale.message, "Gatehouse is not running")
  })
})
