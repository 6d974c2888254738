import { BrowserWindow } from "electron"

// The one place that constructs a BrowserWindow (RELIABILITY.md §7 row 2; a static test counts).
// The webPreferences stay an object literal in the constructor call so Electronegativity can
// read every flag; test/main/electron/windows.test.ts asserts the same flags at runtime.

export interface MainWindowOptions {
  /** Absolute path of the built sandboxed preload (out/preload/index.cjs). */
  readonly preload: string
}

/** A hidden, hardened window; the caller loads the renderer and shows it once it is ready. */
export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  return new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: "Gatehouse",
    backgroundColor: "#ffffff",
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      // Middle-click (auxclick) on a link must not open anything either.
      disableBlinkFeatures: "Auxclick",
      // Reviewed: the preload is the generic contract bridge, pinned by its API snapshot test.
      preload: options.preload, // eng-disable PRELOAD_JS_CHECK
    },
  })
}

/** Where the renderer comes from: the built files, or electron-vite's dev server. */
export type RendererEntry =
  { readonly _tag: "File"; readonly path: string } | { readonly _tag: "Url"; readonly url: string }

/** Loads the renderer and shows the window when its first frame is painted. */
export function loadRenderer(window: BrowserWindow, entry: RendererEntry): Promise<void> {
  window.once("ready-to-show", () => window.show())
  return entry._tag === "File" ? window.loadFile(entry.path) : window.loadURL(entry.url)
}

/** Brings an existing window to the front (a second launch focuses the first instance). */
export function focusWindow(window: BrowserWindow): void {
  if (window.isMinimized()) window.restore()
  if (!window.isVisible()) window.show()
  window.focus()
}
