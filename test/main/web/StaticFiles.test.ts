import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { startHeadless, type Headless } from "@main/web/Headless"
import { StaticFiles } from "@main/web/StaticFiles"
import { makeTempDir } from "../../support/temp"
import { makeRendererDir, send } from "./http"

const secret = "TOP-SECRET-OUTSIDE-THE-RENDERER"

let host: Headless
let root: string
let renderer: string

beforeAll(async () => {
  root = makeTempDir()
  renderer = makeRendererDir(root)
  // Files next to and above the renderer that no request may reach.
  writeFileSync(join(root, "secret.txt"), secret)
  mkdirSync(join(root, "renderer-evil"))
  writeFileSync(join(root, "renderer-evil", "x.txt"), secret)
  symlinkSync(join(root, "secret.txt"), join(renderer, "link.txt"))
  symlinkSync(root, join(renderer, "assets", "up"))
  host = await startHeadless({ dataDir: join(root, "data"), port: 0, env: {}, rendererDir: renderer })
})
afterAll(() => host.close())

describe("StaticFiles", () => {
  it("serves index.html at / and fingerprinted assets with their content types and caching", async () => {
    const index = await send(host.port, { path: "/" })
    assert.strictEqual(index.status, 200)
    assert.strictEqual(index.headers["content-type"], "text/html; charset=utf-8")
    assert.strictEqual(index.headers["cache-control"], "no-cache")
    assert.include(index.body, "<title>Gatehouse</title>")
    const script = await send(host.port, { path: "/assets/index-abc123.js" })
    assert.strictEqual(script.status, 200)
    assert.strictEqual(script.headers["content-type"], "text/javascript; charset=utf-8")
    assert.include(script.headers["cache-control"], "immutable")
    const style = await send(host.port, { path: "/assets/index-abc123.css?v=1" })
    assert.strictEqual(style.headers["content-type"], "text/css; charset=utf-8")
  })

  it("needs no token for the UI's files", async () => {
    assert.strictEqual((await send(host.port, { path: "/index.html" })).status, 200)
  })

  it("answers HEAD without a body", async () => {
    const response = await send(host.port, { method: "HEAD", path: "/" })
    assert.strictEqual(response.status, 200)
    assert.strictEqual(response.body, "")
  })

  it("refuses methods other than GET and HEAD with 405", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const response = await send(host.port, { method, path: "/" })
      assert.strictEqual(response.status, 405, method)
      assert.strictEqual(response.headers.allow, "GET, HEAD")
    }
  })

  it("never serves a file outside the renderer directory, however the path is spelled", async () => {
    const paths = [
      "/../secret.txt",
      "/assets/../../secret.txt",
      "/%2e%2e/secret.txt",
      "/%2E%2E/secret.txt",
      "/assets/%2e%2e/%2e%2e/secret.txt",
      "/..%2fsecret.txt",
      "/%2e%2e%2fsecret.txt",
      "/..%5csecret.txt",
      "/..\\secret.txt",
      "/../renderer-evil/x.txt",
      "/%2e%2e/renderer-evil/x.txt",
      "/link.txt",
      "/assets/up/secret.txt",
      "/secret.txt%00.html",
      "/%",
      "//etc/passwd",
      "/./index.html",
    ]
    for (const path of paths) {
      const response = await send(host.port, { path })
      assert.strictEqual(response.status, 404, path)
      assert.notInclude(response.body, secret, path)
    }
  })

  it("says how to build the UI when there is none", async () => {
    const bare = makeTempDir()
    const empty = await startHeadless({ dataDir: bare, port: 0, env: {}, rendererDir: join(bare, "missing") })
    try {
      const response = await send(empty.port, { path: "/" })
      assert.strictEqual(response.status, 404)
      assert.include(response.body, "npm run build")
    } finally {
      await empty.close()
    }
  })
})

describe("StaticFiles.resolveFile", () => {
  it("maps / and directory paths to index.html and refuses dot segments", () => {
    assert.strictEqual(StaticFiles.resolveFile(renderer, "/"), join(renderer, "index.html"))
    assert.strictEqual(
      StaticFiles.resolveFile(renderer, "/assets/index-abc123.js?x#y"),
      join(renderer, "assets", "index-abc123.js"),
    )
    assert.isUndefined(StaticFiles.resolveFile(renderer, "/assets"))
    assert.isUndefined(StaticFiles.resolveFile(renderer, "/assets/./index-abc123.js"))
    assert.isUndefined(StaticFiles.resolveFile(renderer, "relative.txt"))
  })
})
