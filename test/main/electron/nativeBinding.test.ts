import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import {
  addonAbi,
  electronRebuild,
  ensureElectronNative,
  isStale,
  NativeBuildError,
  nativeBindingPath,
  targetDir,
  type NativeTarget,
  type Rebuild,
  type Stamp,
} from "@main/electron/nativeBinding"
import { makeTempDir } from "../../support/temp"

const target: NativeTarget = { electronVersion: "45.5.0", platform: "linux", arch: "x64" }

/** A project whose node_modules/better-sqlite3 holds sources and a Node build. */
function fakeProject(version = "12.11.1") {
  const root = makeTempDir()
  const pkg = join(root, "node_modules", "better-sqlite3")
  mkdirSync(join(pkg, "src"), { recursive: true })
  mkdirSync(join(pkg, "build", "Release"), { recursive: true })
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "better-sqlite3", version }))
  writeFileSync(join(pkg, "binding.gyp"), "{}")
  writeFileSync(join(pkg, "src", "better_sqlite3.cpp"), "// source")
  writeFileSync(join(pkg, "build", "Release", "better_sqlite3.node"), "node-abi-115")
  return { root, pkg }
}

/** Stands in for @electron/rebuild: writes an addon tagged with the target, records each call. */
const abis: Record<string, string> = { "45.5.0": "150", "46.0.0": "151" }

function fakeRebuild(abiOf: (target: NativeTarget) => string = (target) => abis[target.electronVersion]!) {
  const calls: Array<{ moduleDir: string; target: NativeTarget; sawNodeBuild: boolean }> = []
  const rebuild: Rebuild = async (moduleDir, target) => {
    calls.push({ moduleDir, target, sawNodeBuild: existsSync(join(moduleDir, "build")) })
    mkdirSync(join(moduleDir, "build", "Release"), { recursive: true })
    writeFileSync(
      join(moduleDir, "build", "Release", "better_sqlite3.node"),
      `electron-${target.electronVersion}\0node_register_module_v${abiOf(target)}\0`,
    )
  }
  return { calls, rebuild }
}

const stamp: Stamp = { ...target, abi: "150", betterSqlite3: "12.11.1" }

describe("nativeBinding", () => {
  it("keeps one build per Electron version, platform and architecture under .electron-native", () => {
    expect(targetDir("/p", target)).toBe("/p/.electron-native/45.5.0-linux-x64")
    expect(nativeBindingPath("/p", target)).toBe(
      "/p/.electron-native/45.5.0-linux-x64/better-sqlite3/build/Release/better_sqlite3.node",
    )
  })

  it("treats a build as stale when the addon, the stamp or any stamped fact differs", () => {
    expect(isStale(stamp, stamp, true)).toBe(false)
    expect(isStale(stamp, stamp, false)).toBe(true)
    expect(isStale(stamp, undefined, true)).toBe(true)
    expect(isStale(stamp, "garbage", true)).toBe(true)
    expect(isStale(stamp, { ...stamp, electronVersion: "45.4.0" }, true)).toBe(true)
    expect(isStale(stamp, { ...stamp, abi: "145" }, true)).toBe(true)
    expect(isStale(stamp, { ...stamp, arch: "arm64" }, true)).toBe(true)
    expect(isStale(stamp, { ...stamp, betterSqlite3: "12.10.0" }, true)).toBe(true)
  })

  it("builds a copy of better-sqlite3 for Electron and leaves the Node build alone", async () => {
    const { root, pkg } = fakeProject()
    const { calls, rebuild } = fakeRebuild()
    const binding = await ensureElectronNative({ root, target, abi: "150", rebuild })
    expect(binding).toBe(nativeBindingPath(root, target))
    expect(readFileSync(binding, "utf8")).toMatch(/^electron-45\.5\.0/)
    expect(readFileSync(join(pkg, "build", "Release", "better_sqlite3.node"), "utf8")).toBe("node-abi-115")
    expect(calls).toHaveLength(1)
    expect(calls[0]!.sawNodeBuild).toBe(false)
    expect(existsSync(join(targetDir(root, target), "better-sqlite3", "src", "better_sqlite3.cpp"))).toBe(true)
    expect(JSON.parse(readFileSync(join(targetDir(root, target), "stamp.json"), "utf8"))).toEqual(stamp)
  })

  it("does not rebuild when the stamped build matches", async () => {
    const { root } = fakeProject()
    const { calls, rebuild } = fakeRebuild()
    await ensureElectronNative({ root, target, abi: "150", rebuild })
    await ensureElectronNative({ root, target, abi: "150", rebuild })
    expect(calls).toHaveLength(1)
  })

  it("rebuilds when better-sqlite3 was upgraded, and builds a new Electron version beside the old one", async () => {
    const { root, pkg } = fakeProject()
    const { calls, rebuild } = fakeRebuild()
    await ensureElectronNative({ root, target, abi: "150", rebuild })
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "better-sqlite3", version: "12.12.0" }))
    await ensureElectronNative({ root, target, abi: "150", rebuild })
    const next = { ...target, electronVersion: "46.0.0" }
    await ensureElectronNative({ root, target: next, abi: "151", rebuild })
    expect(calls.map((call) => call.target.electronVersion)).toEqual(["45.5.0", "45.5.0", "46.0.0"])
    expect(readdirSync(join(root, ".electron-native")).sort()).toEqual(["45.5.0-linux-x64", "46.0.0-linux-x64"])
  })

  it("fails with a clear message and leaves nothing that looks finished when the build fails", async () => {
    const { root } = fakeProject()
    const rebuild: Rebuild = () => Promise.reject(new Error("getaddrinfo ENOTFOUND www.electronjs.org"))
    const error = await ensureElectronNative({ root, target, abi: "150", rebuild }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NativeBuildError)
    expect((error as Error).message).toMatch(
      /^Cannot build better-sqlite3 for Electron 45\.5\.0 \(linux-x64\): getaddrinfo ENOTFOUND www\.electronjs\.org\. /,
    )
    expect(readdirSync(join(root, ".electron-native"))).toEqual([])
  })

  it("fails when the build ends without an addon", async () => {
    const { root } = fakeProject()
    const error = await ensureElectronNative({ root, target, abi: "150", rebuild: async () => {} }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(NativeBuildError)
    expect((error as Error).message).toContain("without producing build/Release/better_sqlite3.node")
    expect(existsSync(nativeBindingPath(root, target))).toBe(false)
  })

  it("recovers from a build that was killed half-way", async () => {
    const { root } = fakeProject()
    mkdirSync(join(targetDir(root, target), "better-sqlite3", "build", "Release"), { recursive: true })
    writeFileSync(nativeBindingPath(root, target), "half-written")
    const { calls, rebuild } = fakeRebuild()
    const binding = await ensureElectronNative({ root, target, abi: "150", rebuild })
    expect(calls).toHaveLength(1)
    expect(readFileSync(binding, "utf8")).toMatch(/^electron-45\.5\.0/)
  })

  it("reads the ABI a real addon was compiled for", () => {
    const nodeAddon = createRequire(import.meta.url).resolve("better-sqlite3/build/Release/better_sqlite3.node")
    expect(addonAbi(readFileSync(nodeAddon))).toBe(process.versions.modules)
    expect(addonAbi(Buffer.from("an N-API addon has no such symbol"))).toBeUndefined()
  })

  it("refuses a build that came out for another ABI (node-gyp fell back to Node's headers)", async () => {
    const { root } = fakeProject()
    const { rebuild } = fakeRebuild(() => "115")
    const error = await ensureElectronNative({ root, target, abi: "150", rebuild }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NativeBuildError)
    expect((error as Error).message).toContain("compiled for NODE_MODULE_VERSION 115, not Electron's 150")
    expect(existsSync(nativeBindingPath(root, target))).toBe(false)
  })

  it("hides an npm nodedir setting from @electron/rebuild for the duration of the build", async () => {
    const root = makeTempDir()
    writeFileSync(join(root, "package.json"), "{}")
    const fake = join(root, "node_modules", "@electron", "rebuild")
    mkdirSync(fake, { recursive: true })
    writeFileSync(
      join(fake, "index.js"),
      "exports.rebuild = async (options) => { globalThis.__seen = { options, nodedir: process.env.npm_config_nodedir } }",
    )
    process.env.npm_config_nodedir = "/usr"
    try {
      await electronRebuild(root)("/tmp/module", target)
      const seen = (globalThis as { __seen?: { options: Record<string, unknown>; nodedir: unknown } }).__seen!
      expect(seen.nodedir).toBeUndefined()
      expect(seen.options).toMatchObject({
        buildPath: "/tmp/module",
        electronVersion: "45.5.0",
        arch: "x64",
        onlyModules: [],
        force: true,
      })
      expect(process.env.npm_config_nodedir).toBe("/usr")
    } finally {
      delete process.env.npm_config_nodedir
    }
  })
})
