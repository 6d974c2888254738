import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative, sep } from "node:path"
import { describe, expect, it } from "vitest"

// Static checks that keep Electron's dangerous surface in the files that are reviewed and tested
// for it (RELIABILITY.md §7 rows 2, 3 and 5). Lint enforces the import zones; this counts calls.

const root = join(import.meta.dirname, "..", "..", "..")
const zones = ["src-main", "src-preload", "src-renderer"]

function filesUnder(dir: string): Array<string> {
  let entries: Array<string>
  try {
    entries = readdirSync(dir)
  } catch {
    return []
  }
  return entries.flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

const sources = zones
  .flatMap((zone) => filesUnder(join(root, zone)))
  .map((path) => relative(root, path).split(sep).join("/"))
  .filter((path) => /\.(ts|tsx|js|jsx|mjs|cjs|mts|cts|html)$/.test(path))
const text = new Map(sources.map((path) => [path, readFileSync(join(root, path), "utf8")]))

/** The files whose text matches `pattern`, with how often. */
const occurrences = (pattern: RegExp) =>
  Object.fromEntries(
    [...text]
      .map(([path, source]) => [path, [...source.matchAll(new RegExp(pattern, "g"))].length] as const)
      .filter(([, count]) => count > 0),
  )

describe("layering", () => {
  it("constructs BrowserWindow exactly once, in the window factory", () => {
    expect(occurrences(/new\s+BrowserWindow\s*\(/)).toEqual({ "src-main/electron/windows.ts": 1 })
  })

  it("never creates BrowserViews, WebContentsViews or webviews", () => {
    expect(occurrences(/new\s+(BrowserView|WebContentsView)\s*\(|<webview\b/)).toEqual({})
  })

  it("registers IPC handlers only through IpcServer", () => {
    expect(Object.keys(occurrences(/\bipcMain\s*\.\s*(handle|handleOnce|on|once|addListener)\s*\(/))).toEqual([
      "src-main/ipc/IpcServer.ts",
    ])
  })

  it("touches ipcRenderer and contextBridge only in the preload, which exposes one global", () => {
    expect(Object.keys(occurrences(/\bipcRenderer\b/))).toEqual(["src-preload/index.ts"])
    expect(occurrences(/\bexposeInMainWorld\s*\(/)).toEqual({ "src-preload/index.ts": 1 })
  })

  it("imports electron only in src-main/electron, the composition root and the preload", () => {
    const importers = Object.keys(occurrences(/from\s+["']electron["']|require\(\s*["']electron["']\s*\)/))
    const allowed = (path: string) =>
      path.startsWith("src-main/electron/") || path === "src-main/index.ts" || path === "src-preload/index.ts"
    expect(importers.filter((path) => !allowed(path))).toEqual([])
    expect(importers).toContain("src-main/index.ts")
  })

  it("keeps main and preload code in extensions the security scanner reads", () => {
    expect(sources.filter((path) => !path.startsWith("src-renderer/") && /\.(mjs|cjs|mts|cts)$/.test(path))).toEqual([])
  })
})
