import { isAbsolute, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Exit, Layer, Schema, type Scope } from "effect"
import { Methods, channelOf, type Method } from "@contract/channels"
import { InvalidRequestError } from "@contract/methods"
import { exitSchemaOf } from "@contract/wire"
import { makeDispatcher, type Handlers, type Run } from "./ContractServer"
import { handlers, type HandlerServices } from "./handlers"

export * as IpcServer from "./IpcServer"

// The contract over Electron IPC (SG-10). This module never imports electron: `ipcMain` arrives as
// a structural slice, so registration, sender checks and error-as-data are tested under plain Node.

/**
 * Where the app's own pages come from: the built renderer directory on disk (`loadFile`), or
 * electron-vite's dev server in development. Anything else is foreign.
 */
export type AppOrigin =
  { readonly _tag: "Files"; readonly dir: string } | { readonly _tag: "Server"; readonly origin: string }

export const filesOrigin = (dir: string): AppOrigin => ({ _tag: "Files", dir: resolve(dir) })

/** The dev server's origin, or `undefined` when `url` is not an http(s) URL. */
export function serverOrigin(url: string): AppOrigin | undefined {
  const parsed = parseUrl(url)
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) return undefined
  return { _tag: "Server", origin: parsed.origin }
}

const parseUrl = (url: string): URL | undefined => {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

/**
 * Whether `url` is one of the app's own pages. Compares parsed URLs, never string prefixes:
 * `https://app.attacker` and `http://127.0.0.1:5173@evil.com` must not pass for the app.
 */
export function isAppUrl(url: string | null | undefined, app: AppOrigin): boolean {
  if (typeof url !== "string" || url === "") return false
  const parsed = parseUrl(url)
  if (!parsed) return false
  if (app._tag === "Server") {
    return (
      (parsed.protocol === "http:" || parsed.protocol === "https:") &&
      parsed.username === "" &&
      parsed.password === "" &&
      parsed.origin === app.origin
    )
  }
  // file: pages share the opaque origin "null", so the app is "a file inside the renderer directory".
  if (parsed.protocol !== "file:" || parsed.host !== "") return false
  let path: string
  try {
    // Rejects encoded separators (`%2F`), which could otherwise smuggle `..` past the check.
    path = fileURLToPath(parsed)
  } catch {
    return false
  }
  if (path.includes("\0")) return false
  const rel = relative(app.dir, path)
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
}

/** The part of Electron's `WebFrameMain` the check reads: `parent` is `null` for a top-level frame. */
export interface SenderFrame {
  readonly url: string
  readonly parent: unknown
}

/**
 * A message may reach a handler only from the app's own top-level page (Electron security
 * checklist #17; GHSA-mq8j-3h7h-p8g7). Sub-frames, foreign pages, `about:blank`, `data:` and
 * destroyed frames (`null`) are refused.
 */
export function isTrustedSender(frameUrl: string | null | undefined, isMainFrame: boolean, app: AppOrigin): boolean {
  return isMainFrame && isAppUrl(frameUrl, app)
}

/** The contract method a channel carries, or `undefined` for any other channel. */
export function methodOfChannel(channel: string): Method | undefined {
  return Methods.find((method) => channelOf(method) === channel)
}

export type Verdict =
  { readonly _tag: "Accept"; readonly method: Method } | { readonly _tag: "Reject"; readonly reason: string }

/** Decides whether one invoke may be dispatched, before its payload is even looked at. */
export function admit(channel: string, frame: SenderFrame | null | undefined, app: AppOrigin): Verdict {
  const method = methodOfChannel(channel)
  if (!method) return { _tag: "Reject", reason: "unknown channel" }
  if (!frame) return { _tag: "Reject", reason: "the sender frame is gone" }
  if (!isTrustedSender(frame.url, frame.parent === null, app)) {
    return { _tag: "Reject", reason: frame.parent === null ? "the sender is not the app" : "the sender is a sub-frame" }
  }
  return { _tag: "Accept", method }
}

/** The part of Electron's `IpcMainInvokeEvent` the server reads. */
export interface InvokeEvent {
  readonly senderFrame: SenderFrame | null
}

/** The part of Electron's `ipcMain` the server uses (SG-3: injected, never imported). */
export interface IpcMainSlice {
  handle(channel: string, listener: (event: InvokeEvent, ...args: Array<unknown>) => Promise<unknown>): void
  removeHandler(channel: string): void
}

export interface RegisterOptions<R> {
  readonly ipcMain: IpcMainSlice
  readonly app: AppOrigin
  readonly handlers: Handlers<R>
  readonly run: Run<R>
}

const rejection = (method: Method, reason: string): unknown =>
  Schema.encodeUnknownSync(exitSchemaOf(method))(Exit.fail(new InvalidRequestError({ method, reason })))

const defect = (method: Method, error: unknown): unknown =>
  Schema.encodeUnknownSync(exitSchemaOf(method))(Exit.die(error))

// Electron throws when a frame was disposed between the message and this read; treat that as gone.
const readFrame = (event: InvokeEvent): SenderFrame | null => {
  try {
    const frame = event.senderFrame
    return frame ? { url: frame.url, parent: frame.parent } : null
  } catch {
    return null
  }
}

/**
 * Registers one `ipcMain.handle` per contract method for the lifetime of the scope. Every answer is
 * an encoded Exit: a refused sender or an undecodable payload comes back as an InvalidRequestError,
 * and nothing is ever thrown into `invoke` (Electron would replace the error with a generic one).
 */
export function register<R>(options: RegisterOptions<R>): Effect.Effect<void, never, Scope.Scope> {
  const dispatch = makeDispatcher(options.handlers, options.run)
  const listen = (channel: string) => async (event: InvokeEvent, payload?: unknown) => {
    const verdict = admit(channel, readFrame(event), options.app)
    if (verdict._tag === "Reject") {
      const method = methodOfChannel(channel) ?? Methods[0]
      await options
        .run(Effect.logWarning("IPC call refused").pipe(Effect.annotateLogs({ channel, reason: verdict.reason })))
        .catch(() => undefined)
      return rejection(method, verdict.reason)
    }
    try {
      return await dispatch(verdict.method, payload)
    } catch (error) {
      // Only reachable when the runtime itself is gone (disposed during shutdown).
      return defect(verdict.method, error)
    }
  }
  return Effect.forEach(
    Methods,
    (method) =>
      Effect.acquireRelease(
        Effect.sync(() => options.ipcMain.handle(channelOf(method), listen(channelOf(method)))),
        () => Effect.sync(() => options.ipcMain.removeHandler(channelOf(method))),
      ),
    { discard: true },
  ).pipe(Effect.withSpan("IpcServer.register"))
}

/**
 * The contract's handlers on Electron IPC, registered while the app's runtime lives: disposing the
 * runtime removes every handler.
 */
export const layer = (options: { readonly ipcMain: IpcMainSlice; readonly app: AppOrigin }) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const services = yield* Effect.context<HandlerServices>()
      yield* register({ ...options, handlers, run: Effect.runPromiseWith(services) })
    }),
  )
