import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Context, Effect, Layer, Logger, ManagedRuntime } from "effect"
import { makeAppLayer } from "@main/app/AppLayer"
import { type ServerFile, serverFileName } from "@main/app/serverFile"
import { Tokens } from "@core/auth/Tokens"
import { DataDir } from "@core/config/DataDir"
import { McpIngress } from "@main/ingress/McpIngress"
import packageJson from "../../package.json"
import { ContractSocket } from "./ContractSocket"
import { HttpServer } from "./HttpServer"
import { StaticFiles } from "./StaticFiles"

// The headless host: the whole application layer without Electron, reached over loopback HTTP.
// Everything it starts is a layer resource of one ManagedRuntime, so `close()` (SIGINT/SIGTERM)
// stops the sockets, the server and then the core, in reverse order of start-up.

export interface HeadlessOptions {
  readonly dataDir: string
  /** Overrides `server.port` from config.jsonc; 0 picks any free port. */
  readonly port?: number | undefined
  readonly env?: NodeJS.ProcessEnv
  /** The built renderer; by default `out/renderer` next to the built `out/main/serve.js`. */
  readonly rendererDir?: string
  readonly version?: string
  /** MCP ingress timings (tests shorten them). */
  readonly mcp?: McpIngress.Options
}

export interface Headless {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string
  readonly port: number
  readonly supervisorToken: string
  readonly agentToken: string
  readonly dataDir: string
  /** Closes the server and disposes the runtime (finalizers run, the database closes); idempotent. */
  readonly close: () => Promise<void>
}

export { ServerFile, serverFileName } from "@main/app/serverFile"

/** The one line the host prints on stdout; the token rides in the fragment, never in a query. */
export const readyLine = (url: string, supervisorToken: string) => `Gatehouse ready: ${url}/#token=${supervisorToken}`

/** `out/renderer` relative to the built `out/main/serve.js`. */
export const defaultRendererDir = () => join(dirname(fileURLToPath(import.meta.url)), "..", "renderer")

/** Writes server.json once the port is known and removes it on shutdown (if it is still ours). */
export const serverFileLayer = Layer.effectDiscard(
  Effect.gen(function* () {
    const server = yield* HttpServer.Service
    const dataDir = yield* DataDir.Service
    const file = join(dataDir.path, serverFileName)
    const content: ServerFile = { url: server.url, port: server.port, pid: process.pid }
    yield* Effect.acquireRelease(
      Effect.sync(() => writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o644 })),
      () =>
        Effect.sync(() => {
          // Another instance may have started since and written its own file: leave that one.
          if (existsSync(file) && readFileSync(file, "utf8") === `${JSON.stringify(content, null, 2)}\n`) {
            rmSync(file, { force: true })
          }
        }),
    )
  }),
)

export const makeHostLayer = (options: HeadlessOptions) => {
  const app = makeAppLayer({
    host: "headless",
    dataDir: options.dataDir,
    version: options.version ?? packageJson.version,
    env: options.env ?? process.env,
  })
  const routes = Layer.mergeAll(
    StaticFiles.layer(options.rendererDir ?? defaultRendererDir()),
    ContractSocket.layer,
    // `/mcp`, admitted by the agent token only.
    McpIngress.layer(options.mcp),
    serverFileLayer,
  )
  return routes.pipe(
    Layer.provideMerge(HttpServer.layer({ port: options.port })),
    Layer.provideMerge(app),
    // stdout belongs to the ready line; every log goes to stderr.
    Layer.provideMerge(Layer.succeed(Logger.LogToStderr, true)),
  )
}

/** Starts the host; rejects with the start-up failure (invalid config, port in use, …). */
export async function startHeadless(options: HeadlessOptions): Promise<Headless> {
  const runtime = ManagedRuntime.make(makeHostLayer(options))
  let context: Context.Context<HttpServer.Service | Tokens.Service>
  try {
    context = await runtime.context()
  } catch (error) {
    await runtime.dispose()
    throw error
  }
  const server = Context.get(context, HttpServer.Service)
  const tokens = Context.get(context, Tokens.Service)
  let closing: Promise<void> | undefined
  return {
    url: server.url,
    port: server.port,
    supervisorToken: tokens.supervisor,
    agentToken: tokens.agent,
    dataDir: options.dataDir,
    close: () => (closing ??= runtime.dispose()),
  }
}
