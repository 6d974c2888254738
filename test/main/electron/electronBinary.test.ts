import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import {
  electronPackageDir,
  findElectronBinary,
  installedElectronVersion,
  missingBinaryNotice,
  projectRoot,
} from "@main/electron/electronBinary"
import { makeTempDir } from "../../support/temp"

/** A project root with node_modules/electron as npm leaves it (no binary unless asked). */
function fakeProject(options: { pathTxt?: string; binary?: boolean; abi?: string } = {}) {
  const root = makeTempDir()
  writeFileSync(join(root, "package.json"), "{}")
  const electron = join(root, "node_modules", "electron")
  mkdirSync(electron, { recursive: true })
  writeFileSync(join(electron, "package.json"), JSON.stringify({ name: "electron", version: "45.5.0" }))
  if (options.abi) writeFileSync(join(electron, "abi_version"), `${options.abi}\n`)
  if (options.pathTxt !== undefined) writeFileSync(join(electron, "path.txt"), options.pathTxt)
  if (options.binary) {
    mkdirSync(join(electron, "dist"), { recursive: true })
    writeFileSync(join(electron, "dist", options.pathTxt ?? "electron"), "")
  }
  return { root, electron }
}

describe("electronBinary", () => {
  it("reports no binary when the package was installed without one (no path.txt)", () => {
    const { root } = fakeProject()
    expect(findElectronBinary(root, {})).toBeUndefined()
  })

  it("reports no binary when path.txt names a file that is not there", () => {
    const { root } = fakeProject({ pathTxt: "electron" })
    expect(findElectronBinary(root, {})).toBeUndefined()
  })

  it("finds dist/<path.txt> when both exist", () => {
    const { root, electron } = fakeProject({ pathTxt: "electron", binary: true })
    expect(findElectronBinary(root, {})).toBe(join(electron, "dist", "electron"))
  })

  it("honours ELECTRON_OVERRIDE_DIST_PATH like electron's own launcher", () => {
    const { root } = fakeProject()
    const dist = makeTempDir()
    writeFileSync(join(dist, "electron"), "")
    expect(findElectronBinary(root, { ELECTRON_OVERRIDE_DIST_PATH: dist })).toBe(join(dist, "electron"))
  })

  it("looks where GATEHOUSE_ELECTRON_PACKAGE points, so a test can hide a real binary", () => {
    const { root } = fakeProject({ pathTxt: "electron", binary: true })
    const env = { GATEHOUSE_ELECTRON_PACKAGE: join(root, "nowhere") }
    expect(electronPackageDir(root, env)).toBe(join(root, "nowhere"))
    expect(findElectronBinary(root, env)).toBeUndefined()
  })

  it("reads the installed version and ABI from the package's files", () => {
    expect(installedElectronVersion(fakeProject({ abi: "150" }).root, {})).toEqual({ version: "45.5.0", abi: "150" })
    expect(installedElectronVersion(fakeProject().root, {})).toEqual({ version: "45.5.0", abi: undefined })
  })

  it("finds the project root above a built file", () => {
    const { root } = fakeProject()
    mkdirSync(join(root, "out", "main"), { recursive: true })
    expect(projectRoot(join(root, "out", "main", "launch.js"))).toBe(root)
  })

  it("says what is missing and what happens instead in one line", () => {
    expect(missingBinaryNotice).not.toContain("\n")
    expect(missingBinaryNotice).toMatch(/^Electron binary not found .*starting the headless host instead\.$/)
  })
})
