import { writeFileSync } from "node:fs"
import { request as httpRequest, type IncomingHttpHeaders } from "node:http"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, ManagedRuntime, type Layer } from "effect"
import { Tokens } from "@core/auth/Tokens"
import type { PermissionRequest } from "@contract/model"
import type { McpIngress } from "@main/ingress/McpIngress"
import { makeHostLayer } from "@main/web/Headless"
import { HttpServer } from "@main/web/HttpServer"
import { makeTempDir } from "../../support/temp"
import { makeRendererDir } from "../web/http"
import { connect, type Client as SocketClient, type Message } from "../web/socket"

// The real headless host (app layer, loopback server, contract socket, `/mcp`) on a free port with
// a fresh data directory, and real MCP clients of the official SDK talking to it over HTTP.

export interface Host {
  readonly url: string
  readonly port: number
  readonly agentToken: string
  readonly supervisorToken: string
  readonly dataDir: string
  /** Runs an effect against the host's own services (to read what the UI would see). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, HostServices>) => Promise<A>
  readonly close: () => Promise<void>
}

type HostServices = Layer.Success<ReturnType<typeof makeHostLayer>>

const makeRuntime = (dataDir: string, mcp: McpIngress.Options | undefined) =>
  ManagedRuntime.make(
    // Sessions show `idle` as soon as their last call ends, unless a test says otherwise.
    makeHostLayer({ dataDir, port: 0, env: {}, rendererDir: makeRendererDir(dataDir), mcp: { idleAfter: 0, ...mcp } }),
  )

/** Permission rules that make `bash` ask (the build agent allows it by default). */
export const bashAsks = { agents: { build: [{ action: "bash", resource: "*", effect: "ask" }] } }

export async function startHost(
  options: { readonly config?: unknown; readonly mcp?: McpIngress.Options; readonly dataDir?: string } = {},
): Promise<Host> {
  const dataDir = options.dataDir ?? makeTempDir("gatehouse-mcp-")
  if (options.config !== undefined) writeFileSync(join(dataDir, "config.jsonc"), JSON.stringify(options.config))
  const runtime = makeRuntime(dataDir, options.mcp)
  const [server, tokens] = await runtime.runPromise(Effect.all([HttpServer.Service, Tokens.Service]))
  let closing: Promise<void> | undefined
  return {
    url: server.url,
    port: server.port,
    agentToken: tokens.agent,
    supervisorToken: tokens.supervisor,
    dataDir,
    run: (effect) => runtime.runPromise(effect),
    close: () => (closing ??= runtime.dispose()),
  }
}

export interface Connected {
  readonly client: Client
  readonly transport: StreamableHTTPClientTransport
}

export const mcpUrl = (host: Pick<Host, "url">, params: Record<string, string>) => {
  const url = new URL(`${host.url}/mcp`)
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
  return url
}

/** An SDK client connected to `/mcp?project=…` with the agent token. */
export async function connectClient(
  host: Host,
  options: { readonly project: string; readonly agent?: string; readonly name?: string; readonly token?: string },
): Promise<Connected> {
  const params: Record<string, string> = { project: options.project }
  if (options.agent !== undefined) params.agent = options.agent
  const transport = new StreamableHTTPClientTransport(mcpUrl(host, params), {
    requestInit: { headers: { Authorization: `Bearer ${options.token ?? host.agentToken}` } },
  })
  const client = new Client({ name: options.name ?? "test-client", version: "1.2.3" })
  await client.connect(transport)
  return { client, transport }
}

/** The supervisor's side: the contract socket the UI uses. */
export const supervisor = (host: Host): Promise<SocketClient> => connect(host.port, host.supervisorToken)

const asksIn = (message: Message): ReadonlyArray<PermissionRequest> =>
  message.type === "events"
    ? message.batch.events
        .map((envelope) => envelope.event as { _tag: string; request?: PermissionRequest })
        .filter((event) => event._tag === "permission.v2.asked")
        .map((event) => event.request!)
    : []

/** The next ask (already seen or still to come) that matches, as the inbox receives it. */
export async function nextAsk(
  socket: SocketClient,
  predicate: (request: PermissionRequest) => boolean = () => true,
): Promise<PermissionRequest> {
  const message = await socket.waitFor((candidate) => asksIn(candidate).some(predicate))
  return asksIn(message).find(predicate)!
}

type AnyEvent = { readonly _tag: string } & Record<string, unknown>

const eventsIn = (message: Message): ReadonlyArray<AnyEvent> =>
  message.type === "events" ? message.batch.events.map((envelope) => envelope.event as AnyEvent) : []

/** The first event (already seen or still to come) the supervisor receives that matches. */
export async function nextEvent(socket: SocketClient, predicate: (event: AnyEvent) => boolean): Promise<AnyEvent> {
  const message = await socket.waitFor((candidate) => eventsIn(candidate).some(predicate))
  return eventsIn(message).find(predicate)!
}

/** The text of a tool result's first content part. */
export const textOf = (result: unknown): string => {
  const content = (result as { content?: ReadonlyArray<{ type: string; text?: string }> }).content ?? []
  return content
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("\n")
}

export interface PostResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A raw POST on loopback with exactly these headers (a Host header is added unless given). */
export function post(
  port: number,
  options: { readonly path?: string; readonly headers?: Record<string, string | undefined>; readonly body: string },
): Promise<PostResponse> {
  return new Promise((resolve, reject) => {
    const headers = Object.fromEntries(
      Object.entries({ host: `127.0.0.1:${port}`, ...options.headers }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    )
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: options.path ?? "/mcp",
      headers: { ...headers, "content-length": String(Buffer.byteLength(options.body)) },
      setHost: false,
      agent: false,
    })
    req.on("response", (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on("error", reject)
    req.end(options.body)
  })
}

/** An `initialize` request as an MCP client sends it. */
export const initializeBody = (id = 1) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw-client", version: "0.1" } },
  })

/** The headers an MCP client sends on every POST. */
export const mcpHeaders = (token: string | undefined, extra: Record<string, string | undefined> = {}) => ({
  accept: "application/json, text/event-stream",
  "content-type": "application/json",
  ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
  ...extra,
})
