import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { app, BrowserWindow, dialog, ipcMain, session } from "electron"
import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect"
import { EventChannel } from "@contract/channels"
import { makeAppLayer } from "./app/AppLayer"
import { resolveDataDir } from "./app/paths"
import { EventPush } from "./electron/EventPush"
import { guardWebContents } from "./electron/navigation"
import { nativeBindingPath } from "./electron/nativeBinding"
import { hardenSession } from "./electron/session"
import { createMainWindow, focusWindow, loadRenderer, type RendererEntry } from "./electron/windows"
import { appServerLayer } from "./ingress/host"
import { IpcServer } from "./ipc/IpcServer"
import { handlers } from "./ipc/handlers"
import { localCaller } from "./ipc/localCaller"
import { installMenu } from "./electron/menu"

// The Electron composition root (SG-8): one app layer in one ManagedRuntime, the contract over IPC,
// windows from the one factory, and a quit that waits for the runtime to dispose.

const e2e = process.env.GATEHOUSE_E2E === "1"
const dataDirOverride = process.env.GATEHOUSE_DATA_DIR

// Test-only: each e2e launch gets its own Chromium profile, and so its own instance lock, inside
// its temp data directory. Must happen before `ready` and before the lock is taken.
if (e2e && dataDirOverride) app.setPath("userData", join(resolve(dataDirOverride), "electron"))

if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  main().catch(fail)
}

async function main(): Promise<void> {
  await app.whenReady()
  const root = app.getAppPath()
  const rendererDir = fileURLToPath(new URL("../renderer", import.meta.url))
  const preload = fileURLToPath(new URL("../preload/index.cjs", import.meta.url))
  // ELECTRON_RENDERER_URL is set only by `electron-vite dev`; a packaged app never honours it.
  const devServer = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL
  const devOrigin = devServer ? IpcServer.serverOrigin(devServer) : undefined
  const appOrigin = devOrigin ?? IpcServer.filesOrigin(rendererDir)
  const entry: RendererEntry =
    devServer && devOrigin ? { _tag: "Url", url: devServer } : { _tag: "File", path: join(rendererDir, "index.html") }

  const nativeBinding = nativeBindingPath(root, {
    electronVersion: process.versions.electron,
    platform: process.platform,
    arch: process.arch,
  })
  if (!existsSync(nativeBinding)) {
    throw new Error(
      `The Electron build of better-sqlite3 is missing (${nativeBinding}). Start Gatehouse with "npm start", which builds it.`,
    )
  }

  hardenSession(session.defaultSession, appOrigin)
  app.on("web-contents-created", (_event, contents) => guardWebContents(contents, appOrigin))

  const dataDir = resolveDataDir({ env: process.env, electronUserData: app.getPath("userData") })
  const appLayer = makeAppLayer({
    host: "electron",
    dataDir,
    version: app.getVersion(),
    nativeBinding,
  })
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(
      IpcServer.layer({ ipcMain, app: appOrigin }),
      EventPush.layer,
      // MCP clients reach the app over loopback HTTP (`/mcp`, agent token), like the headless host.
      appServerLayer(),
    ).pipe(Layer.provideMerge(appLayer)),
  )

  let disposing = false
  app.on("before-quit", (event) => {
    // Electron would exit without waiting: hold the quit until finalizers have closed the database
    // and drained pending asks, then exit for real (app.exit skips before-quit).
    event.preventDefault()
    if (disposing) return
    disposing = true
    runtime.dispose().then(
      () => app.exit(0),
      (error: unknown) => {
        console.error("Gatehouse did not shut down cleanly:", error)
        app.exit(1)
      },
    )
  })
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => app.quit())

  const started = await runtime.runPromiseExit(Effect.void)
  if (Exit.isFailure(started)) {
    disposing = true
    await runtime.dispose()
    throw Cause.squash(started.cause)
  }

  installMenu({ dataDir, call: localCaller(handlers, runtime.runPromise) })

  const openWindow = (): BrowserWindow => {
    const window = createMainWindow({ preload })
    const contents = window.webContents
    const detach = runtime.runSync(
      Effect.gen(function* () {
        const push = yield* EventPush.Service
        return yield* push.attach((batch) => {
          if (!contents.isDestroyed()) contents.send(EventChannel, batch)
        })
      }),
    )
    window.on("closed", detach)
    loadRenderer(window, entry).catch((error: unknown) => console.error("Cannot load the Gatehouse UI:", error))
    return window
  }

  app.on("second-instance", () => {
    const [first] = BrowserWindow.getAllWindows()
    if (first) focusWindow(first)
    else openWindow()
  })
  app.on("activate", () => {
    if (BrowserWindow.getAllWindows().length === 0) openWindow()
  })
  app.on("window-all-closed", () => {
    if (process.platform !== "darwin") app.quit()
  })
  openWindow()
}

function fail(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error)
  console.error(`Gatehouse cannot start: ${message}`)
  if (!e2e) dialog.showErrorBox("Gatehouse cannot start", message)
  app.exit(1)
}
