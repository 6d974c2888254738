import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { _electron as electron, expect, test as base, type ElectronApplication, type Page } from "@playwright/test"
import { Methods } from "../../../src-preload/contract/channels"
import { findElectronBinary, installedElectronVersion } from "../../../src-main/electron/electronBinary"
import { electronRebuild, ensureElectronNative } from "../../../src-main/electron/nativeBinding"
import { ShellPage } from "../pages/shell-page"
import { makeDataDir, projectRoot, removeDataDir } from "../support/serve"

// The desktop app end to end, against the `electron-vite build` output. Runs only where the
// Electron binary is installed (build machines here cannot download it).

const binary = findElectronBinary(projectRoot, process.env)
const hasElectronBinary = () => binary !== undefined

interface Fixtures {
  /** A fresh data directory for this test (Chromium's profile lives inside it too). */
  readonly dataDir: string
  readonly app: ElectronApplication
  readonly window: Page
  readonly shell: ShellPage
}

// Chromium refuses to start as root (CI containers) unless its OS-level sandbox is switched off;
// that weakens only these test runs, never `npm start`.
const rootArgs = process.getuid?.() === 0 ? [".", "--no-sandbox"] : ["."]

const launchEnv = (dataDir: string): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value
  delete env.ELECTRON_RUN_AS_NODE
  return { ...env, GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_E2E: "1", GATEHOUSE_CONFIG: "" }
}

const test = base.extend<Fixtures>({
  // eslint-disable-next-line no-empty-pattern
  dataDir: async ({}, use) => {
    const dataDir = makeDataDir()
    await use(dataDir)
    removeDataDir(dataDir)
  },
  app: async ({ dataDir }, use) => {
    const app = await electron.launch({
      executablePath: binary!,
      args: rootArgs,
      cwd: projectRoot,
      env: launchEnv(dataDir),
    })
    await use(app)
    await app.close().catch(() => undefined)
  },
  window: async ({ app }, use) => {
    await use(await app.firstWindow())
  },
  shell: async ({ window }, use) => {
    await use(new ShellPage(window))
  },
})

test.skip(!hasElectronBinary(), "Electron binary is not installed (node_modules/electron/path.txt missing)")

test.beforeAll(async () => {
  // The app loads better-sqlite3 built for Electron; `npm start` builds it, a test run may be first.
  test.setTimeout(600_000)
  const version = installedElectronVersion(projectRoot, process.env)
  await ensureElectronNative({
    root: projectRoot,
    target: { electronVersion: version.version, platform: process.platform, arch: process.arch },
    abi: version.abi,
    rebuild: electronRebuild(projectRoot),
  })
})

test.describe("electron app", () => {
  test("opens one window that shows the shell and goes live over IPC", async ({ app, shell }) => {
    await shell.expectConnection("live")
    await shell.expectView("inbox")
    await expect(shell.appInfo).toContainText("electron")
    await expect(shell.problem).toHaveCount(0)
    expect(app.windows()).toHaveLength(1)
  })

  test("navigates between the four views", async ({ shell }) => {
    await shell.expectConnection("live")
    for (const view of ["sessions", "approvals", "outputs", "inbox"] as const) await shell.open(view)
  })

  test("runs the renderer without node, reaching main only through window.api", async ({ window, shell }) => {
    // Going live needs window.api, which contextBridge provides only under context isolation.
    await shell.expectConnection("live")
    // Strings: they run in the page, and this file is type-checked for Node.
    expect(await window.evaluate(`typeof require + " " + typeof process + " " + typeof module`)).toBe(
      "undefined undefined undefined",
    )
    expect(await window.evaluate(`Object.keys(window.api).sort().join(",")`)).toBe("invoke,onEvent")
    expect(await window.evaluate(`Object.keys(window.api.invoke).sort().join(",")`)).toBe([...Methods].sort().join(","))
  })

  test("cancels navigation away from the app and opens no new windows", async ({ app, window, shell }) => {
    await shell.expectConnection("live")
    const startUrl = window.url()
    await app.evaluate(({ BrowserWindow }) => {
      const seen: Array<[string, boolean]> = []
      ;(globalThis as { __navigations?: typeof seen }).__navigations = seen
      // Added after the app's guard, so it observes the guard's decision.
      BrowserWindow.getAllWindows()[0]!.webContents.on("will-navigate", (event) => {
        seen.push([event.url, event.defaultPrevented])
      })
    })
    await window.evaluate(`location.href = "https://example.com/"`)
    await expect
      .poll(() => app.evaluate(() => (globalThis as { __navigations?: unknown }).__navigations))
      .toEqual([["https://example.com/", true]])
    expect(await window.evaluate(`window.open("https://example.com/") === null`)).toBe(true)
    expect(app.windows()).toHaveLength(1)
    expect(window.url()).toBe(startUrl)
    await shell.expectConnection("live")
  })

  test("denies permission requests", async ({ window, shell }) => {
    await shell.expectConnection("live")
    expect(await window.evaluate(`Notification.requestPermission()`)).toBe("denied")
  })

  test("blocks inline script under the renderer's CSP", async ({ window, shell }) => {
    await shell.expectConnection("live")
    const ran = await window.evaluate(`(() => {
      const script = document.createElement("script")
      script.textContent = "document.body.dataset.inline = 'ran'"
      document.body.append(script)
      return document.body.dataset.inline === "ran"
    })()`)
    expect(ran).toBe(false)
  })

  test("a second launch focuses the first instance and exits", async ({ app, dataDir, shell }) => {
    await shell.expectConnection("live")
    const second = spawnSync(binary!, rootArgs, { cwd: projectRoot, env: launchEnv(dataDir), timeout: 30_000 })
    expect(second.status).toBe(0)
    expect(app.windows()).toHaveLength(1)
  })

  test("quitting waits for the runtime to close the database", async ({ app, dataDir, shell }) => {
    await shell.expectConnection("live")
    expect(existsSync(join(dataDir, "gatehouse.db"))).toBe(true)
    await app.close()
    // SQLite removes the WAL file only when the last connection closes cleanly.
    expect(existsSync(join(dataDir, "gatehouse.db-wal"))).toBe(false)
  })
})
