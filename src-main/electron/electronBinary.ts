import { existsSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"

// Finds the Electron executable the way node_modules/electron/index.js does, without requiring that
// file: it downloads the binary when it is missing, which must never happen at run or test time.

/** The project root: the nearest directory above `from` that holds a package.json. */
export function projectRoot(from: string): string {
  let dir = resolve(from)
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`No package.json above ${from}`)
    dir = parent
  }
  return dir
}

/** node_modules/electron, or the directory `GATEHOUSE_ELECTRON_PACKAGE` names (tests point it elsewhere). */
export const electronPackageDir = (root: string, env: NodeJS.ProcessEnv): string =>
  env.GATEHOUSE_ELECTRON_PACKAGE ? resolve(env.GATEHOUSE_ELECTRON_PACKAGE) : join(root, "node_modules", "electron")

/**
 * The Electron executable, or `undefined` when the package was installed without its binary:
 * present iff `path.txt` exists and `dist/<path.txt>` exists (or `ELECTRON_OVERRIDE_DIST_PATH`,
 * which electron's own launcher honours, holds it).
 */
export function findElectronBinary(root: string, env: NodeJS.ProcessEnv): string | undefined {
  const dir = electronPackageDir(root, env)
  let name: string | undefined
  try {
    name = readFileSync(join(dir, "path.txt"), "utf8").trim() || undefined
  } catch {
    name = undefined
  }
  const override = env.ELECTRON_OVERRIDE_DIST_PATH
  const binary = override ? join(override, name ?? "electron") : name ? join(dir, "dist", name) : undefined
  return binary && existsSync(binary) ? binary : undefined
}

export interface ElectronVersion {
  readonly version: string
  /** NODE_MODULE_VERSION of that Electron, when the package says (`abi_version`). */
  readonly abi: string | undefined
}

/** The installed electron package's version and ABI, read from its files. */
export function installedElectronVersion(root: string, env: NodeJS.ProcessEnv): ElectronVersion {
  const dir = electronPackageDir(root, env)
  const { version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }
  let abi: string | undefined
  try {
    abi = readFileSync(join(dir, "abi_version"), "utf8").trim() || undefined
  } catch {
    abi = undefined
  }
  return { version, abi }
}

/** The one line `npm start` prints when it falls back to the headless host. */
export const missingBinaryNotice =
  'Electron binary not found (node_modules/electron has no downloaded binary; run "npx install-electron" where github.com is reachable); starting the headless host instead.'
