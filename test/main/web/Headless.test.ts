import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import WebSocket from "ws"
import { Config } from "@core/config/Config"
import { readyLine, serverFileName, startHeadless } from "@main/web/Headless"
import { HttpServer } from "@main/web/HttpServer"
import { makeTempDir } from "../../support/temp"
import { makeRendererDir } from "./http"

const start = (dataDir: string, options: { port?: number; env?: NodeJS.ProcessEnv } = {}) =>
  startHeadless({ dataDir, port: options.port ?? 0, env: options.env ?? {}, rendererDir: makeRendererDir(dataDir) })

describe("Headless", () => {
  it("writes server.json with url, port and pid and no secret, and removes it on close", async () => {
    const dataDir = makeTempDir()
    const host = await start(dataDir)
    const file = join(dataDir, serverFileName)
    const text = readFileSync(file, "utf8")
    assert.deepStrictEqual(JSON.parse(text), { url: host.url, port: host.port, pid: process.pid })
    assert.notInclude(text, host.supervisorToken)
    assert.notInclude(text, host.agentToken)
    await host.close()
    assert.isFalse(existsSync(file))
  })

  it("leaves a server.json that another instance has since written", async () => {
    const dataDir = makeTempDir()
    const host = await start(dataDir)
    const other = JSON.stringify({ url: "http://127.0.0.1:1", port: 1, pid: 1 })
    writeFileSync(join(dataDir, serverFileName), other)
    await host.close()
    assert.strictEqual(readFileSync(join(dataDir, serverFileName), "utf8"), other)
  })

  it("uses server.port from config.jsonc unless a port is given", async () => {
    const dataDir = makeTempDir()
    const probe = await start(makeTempDir())
    const free = probe.port
    await probe.close()
    writeFileSync(join(dataDir, "config.jsonc"), `{ "server": { "port": ${free} } } // the UI's port`)
    const host = await startHeadless({ dataDir, env: {}, rendererDir: makeRendererDir(dataDir) })
    assert.strictEqual(host.port, free)
    await host.close()
  })

  it("refuses to start on an invalid config.jsonc with the file, the key and the reason", async () => {
    const dataDir = makeTempDir()
    writeFileSync(join(dataDir, "config.jsonc"), `{ "server": { "port": "eighty" } }`)
    const error = await start(dataDir).then(
      () => assert.fail("started on an invalid config"),
      (error: unknown) => error,
    )
    assert.instanceOf(error, Config.InvalidError)
    assert.match((error as Error).message, /^Invalid configuration in .*config\.jsonc at server\.port: /)
    assert.isFalse(existsSync(join(dataDir, serverFileName)))
  })

  it("refuses to start on a port that is taken, naming it", async () => {
    const first = await start(makeTempDir())
    const error = await start(makeTempDir(), { port: first.port }).then(
      () => assert.fail("started on a taken port"),
      (error: unknown) => error,
    )
    assert.instanceOf(error, HttpServer.ListenError)
    await first.close()
  })

  it("closes open sockets with 1001, closes the database and can be closed twice", async () => {
    const dataDir = makeTempDir()
    const host = await start(dataDir)
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, ["gatehouse", `bearer.${host.supervisorToken}`])
    await new Promise((resolve) => ws.once("open", resolve))
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)))
    assert.isTrue(existsSync(join(dataDir, "gatehouse.db-wal")))
    await Promise.all([host.close(), host.close()])
    assert.strictEqual(await closed, 1001)
    // SQLite removes the WAL file when the last connection closes cleanly.
    assert.isFalse(existsSync(join(dataDir, "gatehouse.db-wal")))
    const refused = await fetch(`${host.url}/`).then(
      () => false,
      () => true,
    )
    assert.isTrue(refused)
  })

  it("prints the ready line with the token in the fragment, never in a query", () => {
    const line = readyLine("http://127.0.0.1:4000", "ab".repeat(32))
    assert.strictEqual(line, `Gatehouse ready: http://127.0.0.1:4000/#token=${"ab".repeat(32)}`)
    assert.notInclude(line, "?")
  })
})
