import { EventEmitter } from "node:events"
import { beforeEach, describe, expect, it, vi } from "vitest"

// The only tests allowed to mock electron (SG-21): the factory is a thin adapter over BrowserWindow.

const created: Array<FakeBrowserWindow> = []

class FakeBrowserWindow extends EventEmitter {
  readonly loaded: Array<readonly ["file" | "url", string]> = []
  visible = false
  minimized = false
  focused = false
  constructor(readonly options: Record<string, unknown>) {
    super()
    created.push(this)
  }
  loadFile(path: string) {
    this.loaded.push(["file", path])
    return Promise.resolve()
  }
  loadURL(url: string) {
    this.loaded.push(["url", url])
    return Promise.resolve()
  }
  show() {
    this.visible = true
  }
  isVisible() {
    return this.visible
  }
  isMinimized() {
    return this.minimized
  }
  restore() {
    this.minimized = false
  }
  focus() {
    this.focused = true
  }
}

vi.mock("electron", () => ({ BrowserWindow: FakeBrowserWindow }))

const { createMainWindow, focusWindow, loadRenderer } = await import("@main/electron/windows")

const preferencesOf = (window: unknown) =>
  (window as FakeBrowserWindow).options.webPreferences as Record<string, unknown>

describe("windows", () => {
  beforeEach(() => {
    created.length = 0
  })

  it("creates windows with the eight hardened web preferences (RELIABILITY §7 row 2)", () => {
    const preferences = preferencesOf(createMainWindow({ preload: "/app/out/preload/index.cjs" }))
    expect(preferences.contextIsolation).toBe(true)
    expect(preferences.sandbox).toBe(true)
    expect(preferences.nodeIntegration).toBe(false)
    expect(preferences.nodeIntegrationInSubFrames).not.toBe(true)
    expect(preferences.webSecurity).not.toBe(false)
    expect(preferences.allowRunningInsecureContent).not.toBe(true)
    expect(preferences.experimentalFeatures).not.toBe(true)
    expect(preferences.enableBlinkFeatures).toBeUndefined()
  })

  it("disables webviews, node in workers and middle-click opening, and uses the given preload", () => {
    const preferences = preferencesOf(createMainWindow({ preload: "/app/out/preload/index.cjs" }))
    expect(preferences.webviewTag).toBe(false)
    expect(preferences.nodeIntegrationInWorker).toBe(false)
    expect(preferences.disableBlinkFeatures).toContain("Auxclick")
    expect(preferences.preload).toBe("/app/out/preload/index.cjs")
  })

  it("creates the window hidden so it appears only when painted", async () => {
    const window = createMainWindow({ preload: "/p.cjs" }) as unknown as FakeBrowserWindow
    expect(window.options.show).toBe(false)
    await loadRenderer(window as never, { _tag: "File", path: "/app/out/renderer/index.html" })
    expect(window.visible).toBe(false)
    window.emit("ready-to-show")
    expect(window.visible).toBe(true)
  })

  it("loads the built renderer from disk, or the dev server URL when given one", async () => {
    const window = createMainWindow({ preload: "/p.cjs" }) as unknown as FakeBrowserWindow
    await loadRenderer(window as never, { _tag: "File", path: "/app/out/renderer/index.html" })
    await loadRenderer(window as never, { _tag: "Url", url: "http://localhost:5173/" })
    expect(window.loaded).toEqual([
      ["file", "/app/out/renderer/index.html"],
      ["url", "http://localhost:5173/"],
    ])
  })

  it("brings a minimized or hidden window back to the front", () => {
    const window = createMainWindow({ preload: "/p.cjs" }) as unknown as FakeBrowserWindow
    window.minimized = true
    focusWindow(window as never)
    expect(window.minimized).toBe(false)
    expect(window.visible).toBe(true)
    expect(window.focused).toBe(true)
  })
})
