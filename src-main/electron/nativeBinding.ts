import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import type { rebuild as ElectronRebuild } from "@electron/rebuild"

// The Electron build of better-sqlite3 (STYLE.md SG-16; see README.md in this folder).
// node_modules/better-sqlite3 stays built for Node, for tests and the headless host. The app loads
// a second copy of the native addon, compiled for Electron's ABI into .electron-native/, through
// better-sqlite3's `nativeBinding` option; the JavaScript half still comes from node_modules.

/** What an Electron build of the addon is compiled for. */
export interface NativeTarget {
  readonly electronVersion: string
  readonly platform: string
  readonly arch: string
}

/** Written after a successful build; any difference means the build is stale. */
export interface Stamp extends NativeTarget {
  /** Electron's NODE_MODULE_VERSION, when known. */
  readonly abi: string | null
  /** The addon must match the JavaScript half exactly, so an upgrade of better-sqlite3 rebuilds. */
  readonly betterSqlite3: string
}

export const nativeRoot = (root: string): string => join(root, ".electron-native")

/** `.electron-native/<electron version>-<platform>-<arch>`: one build per target, side by side. */
export const targetDir = (root: string, target: NativeTarget): string =>
  join(nativeRoot(root), `${target.electronVersion}-${target.platform}-${target.arch}`)

/** Where the Electron main process finds the addon (`Store.layer({ nativeBinding })`). */
export const nativeBindingPath = (root: string, target: NativeTarget): string =>
  join(targetDir(root, target), "better-sqlite3", "build", "Release", "better_sqlite3.node")

const stampPath = (root: string, target: NativeTarget): string => join(targetDir(root, target), "stamp.json")

const readJson = (path: string): unknown => {
  try {
    return JSON.parse(readFileSync(path, "utf8"))
  } catch {
    return undefined
  }
}

/** Whether the build must be (re)made: no addon file, no stamp, or a stamp for anything else. */
export function isStale(expected: Stamp, found: unknown, addonExists: boolean): boolean {
  if (!addonExists || typeof found !== "object" || found === null) return true
  const stamp = found as Record<string, unknown>
  return (Object.keys(expected) as Array<keyof Stamp>).some((key) => stamp[key] !== expected[key])
}

/** Compiles the better-sqlite3 package at `moduleDir` for Electron, in place. */
export type Rebuild = (moduleDir: string, target: NativeTarget) => Promise<void>

/**
 * `@electron/rebuild` (a devDependency, resolved from the project at run time so it is never
 * bundled): it first tries better-sqlite3's published Electron prebuild, then node-gyp against
 * Electron's headers; both need the network and the second a C++ toolchain.
 */
export const electronRebuild =
  (root: string): Rebuild =>
  async (moduleDir, target) => {
    const load = createRequire(join(root, "package.json"))
    const { rebuild } = load("@electron/rebuild") as { rebuild: typeof ElectronRebuild }
    // An npm `nodedir` setting (common on offline build machines) makes node-gyp compile against
    // Node's headers instead of Electron's, and "succeed" with the wrong ABI. The node-gyp worker
    // inherits process.env, so the setting is hidden for the duration of the build.
    const hidden = Object.keys(process.env).filter((key) => key.toLowerCase() === "npm_config_nodedir")
    const saved = hidden.map((key) => [key, process.env[key]] as const)
    for (const key of hidden) delete process.env[key]
    try {
      await rebuild({
        buildPath: moduleDir,
        projectRootPath: moduleDir,
        electronVersion: target.electronVersion,
        platform: target.platform as NodeJS.Platform,
        arch: target.arch,
        // Only the package itself: its own dependencies are plain JavaScript.
        onlyModules: [],
        force: true,
      })
    } finally {
      for (const [key, value] of saved) process.env[key] = value
    }
  }

/**
 * The NODE_MODULE_VERSION a non-N-API addon was compiled for, read from the registration symbol
 * every such addon exports (`node_register_module_v<abi>`); `undefined` for N-API addons.
 */
export function addonAbi(contents: Uint8Array): string | undefined {
  return /node_register_module_v(\d+)/.exec(Buffer.from(contents).toString("latin1"))?.[1]
}

export class NativeBuildError extends Error {
  constructor(
    readonly target: NativeTarget,
    readonly reason: string,
  ) {
    super(
      `Cannot build better-sqlite3 for Electron ${target.electronVersion} (${target.platform}-${target.arch}): ${reason}. ` +
        `It needs network access to fetch a prebuilt addon or Electron's headers, and a C++ toolchain for the fallback. ` +
        `Delete .electron-native/ and run "npm start" again to retry.`,
    )
    this.name = "NativeBuildError"
  }
}

export interface EnsureOptions {
  readonly root: string
  readonly target: NativeTarget
  readonly abi: string | undefined
  readonly rebuild: Rebuild
  readonly log?: (line: string) => void
}

/**
 * Makes sure `.electron-native/<target>/` holds an addon built for this Electron and this
 * better-sqlite3, building it when missing or stale, and returns its path. The build happens in a
 * sibling temp folder that is renamed into place with its stamp, so a build killed half-way leaves
 * nothing that looks finished.
 */
export async function ensureElectronNative(options: EnsureOptions): Promise<string> {
  const { root, target } = options
  const source = join(root, "node_modules", "better-sqlite3")
  const { version } = JSON.parse(readFileSync(join(source, "package.json"), "utf8")) as { version: string }
  const expected: Stamp = { ...target, abi: options.abi ?? null, betterSqlite3: version }
  const binding = nativeBindingPath(root, target)
  if (!isStale(expected, readJson(stampPath(root, target)), existsSync(binding))) return binding

  options.log?.(`Building better-sqlite3 ${version} for Electron ${target.electronVersion} (one time)…`)
  const dir = targetDir(root, target)
  const staging = `${dir}.building-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  const moduleDir = join(staging, "better-sqlite3")
  try {
    // The package without its Node build, so nothing Node-built can be mistaken for the result.
    cpSync(source, moduleDir, { recursive: true, filter: (path) => path !== join(source, "build") })
    await options.rebuild(moduleDir, target)
    const addon = join(moduleDir, "build", "Release", "better_sqlite3.node")
    if (!existsSync(addon)) {
      throw new NativeBuildError(target, "the build finished without producing build/Release/better_sqlite3.node")
    }
    const built = addonAbi(readFileSync(addon))
    if (options.abi && built && built !== options.abi) {
      throw new NativeBuildError(
        target,
        `the addon was compiled for NODE_MODULE_VERSION ${built}, not Electron's ${options.abi} (node-gyp used Node's headers)`,
      )
    }
    writeFileSync(join(staging, "stamp.json"), `${JSON.stringify(expected, null, 2)}\n`)
    rmSync(dir, { recursive: true, force: true })
    renameSync(staging, dir)
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    if (error instanceof NativeBuildError) throw error
    throw new NativeBuildError(target, error instanceof Error ? error.message : String(error))
  }
  return binding
}
