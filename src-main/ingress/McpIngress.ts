import { randomUUID } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type InitializeRequest,
  type RequestId,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js"
import { Context, Deferred, Duration, Effect, Exit, FiberSet, Layer, Scope } from "effect"
import type { ProjectId, SessionId } from "@contract/ids"
import type { Project, Session, SessionStatus } from "@contract/model"
import { AppInfo } from "@core/config/AppInfo"
import { Locations } from "@core/location/Locations"
import { Agents } from "@core/session/Agents"
import { Projects } from "@core/session/Projects"
import { Questions } from "@core/session/Questions"
import { Runner } from "@core/session/Runner"
import { SessionControl } from "@core/session/SessionControl"
import { Sessions } from "@core/session/Sessions"
import { ToolCalls } from "@core/session/ToolCalls"
import { HttpServer } from "@main/web/HttpServer"
import { allowedHosts, allowedOrigins } from "@main/web/security"
import { clientInfoOf, parseBinding, sourceOf, titleOf, type ClientInfo } from "./binding"
import { settleCall, type CallContext, type CancelReason } from "./calls"
import { path } from "./endpoint"
import { Codes, isJsonContentType, readBody, sendJsonRpcError } from "./http"
import { errorResult, SHUTTING_DOWN_TEXT, STOPPED_TEXT, toMcpTool } from "./results"

export * as McpIngress from "./McpIngress"

/** Why a session ended when its client went away. */
export const DISCONNECTED = "MCP client disconnected"

/** Why an MCP session a previous process left open was stopped when Gatehouse started. */
export const RESTARTED = "Gatehouse restarted; the MCP client must reconnect"

export interface Options {
  /** How often a running call sends `notifications/progress` when the client gave a token (default 5 s). */
  readonly progressInterval?: Duration.Input
  /**
   * How long a session survives without any open HTTP request once its client had held a GET
   * stream (SDK clients do: its closing means the client went away). Covers the client's own
   * reconnect delay. Default 60 seconds.
   */
  readonly disconnectGrace?: Duration.Input
  /** How long a session whose client never held a stream survives without any request (default 30 min). */
  readonly idleTimeout?: Duration.Input
  /**
   * How long a session stays `running` after its last call ended before it shows `idle` (default
   * 2 s): a client calling tool after tool is one stretch of work, not a flicker of statuses, and
   * each status change is a durable write.
   */
  readonly idleAfter?: Duration.Input
}

/** The timings a host gets unless it says otherwise. */
export const defaults = {
  progressInterval: "5 seconds",
  disconnectGrace: "60 seconds",
  idleTimeout: "30 minutes",
  idleAfter: "2 seconds",
} as const satisfies Required<Options>

/** A Gatehouse session bound to a live MCP session. */
export interface LiveSession {
  readonly sessionID: SessionId
  readonly projectId: ProjectId
  readonly agent: string
  readonly client: ClientInfo
  /** Calls running now. */
  readonly calls: number
  /** Stopped from the UI: every further call is refused until the client reconnects. */
  readonly stopped: boolean
}

/**
 * MCP ingress (PRODUCT.md, "How agent sessions reach Gatehouse", item 1): `/mcp` on the loopback
 * server speaks MCP Streamable HTTP through the official SDK, one SDK server and transport per MCP
 * session. Each MCP session is bound at `initialize` to a new Gatehouse session in the project's
 * Location (`?project=<absolute dir>&agent=<name>`, source `mcp:<client name>`); `tools/list` is
 * the agent's materialized catalog and `tools/call` settles through the registry, so asks wait in
 * the inbox while the call waits.
 */
export interface Interface {
  /** The sessions bound to a live MCP session now (synchronous). */
  readonly liveUnsafe: () => ReadonlyArray<LiveSession>
  /**
   * Stops a bound session as Stop in the UI does: it becomes `stopped`, its running calls are
   * interrupted (their asks withdrawn) and answered with {@link STOPPED_TEXT}, and every further
   * call is refused with it until the client reconnects (a new MCP session is a new Gatehouse
   * session). Returns once the running calls have ended; nothing happens for other sessions.
   */
  readonly stop: (sessionID: SessionId) => Effect.Effect<void>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/ingress/McpIngress") {}

interface Call {
  readonly cancel: Deferred.Deferred<CancelReason>
  /** Completed once the call has answered. */
  readonly done: Deferred.Deferred<void>
}

/** One bound MCP session. */
interface Entry {
  readonly mcpSessionId: string
  readonly session: Session
  readonly client: ClientInfo
  readonly context: CallContext
  readonly scope: Scope.Closeable
  readonly server: Server
  readonly transport: StreamableHTTPServerTransport
  readonly calls: Map<string, Call>
  state: "open" | "stopped" | "ended"
  /** Calls past their `running` record, for the session's running/idle status. */
  running: number
  /** HTTP requests of this session still open (POST streams, the GET stream, DELETE). */
  connections: number
  /** The client has opened a GET stream: its closing is how a client's departure shows. */
  sawStream: boolean
  timer: ReturnType<typeof setTimeout> | undefined
  /** Pending switch to `idle` after the last call ended. */
  idleTimer: ReturnType<typeof setTimeout> | undefined
}

const instructions = (project: Project, agent: string) =>
  [
    `Gatehouse runs these tools in ${project.directory} as the "${agent}" agent, under a person's supervision.`,
    "A call that needs approval waits until the person answers in Gatehouse's inbox: keep waiting for it.",
    "If a result says the user declined, stop and wait for the user's instructions.",
  ].join(" ")

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

const requestIdsOf = (body: unknown): ReadonlyArray<RequestId> =>
  (Array.isArray(body) ? body : [body]).filter(isJSONRPCRequest).map((request) => request.id)

export const layer = (options: Options = {}) =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const http = yield* HttpServer.Service
      const appInfo = yield* AppInfo.Service
      const projects = yield* Projects.Service
      const sessions = yield* Sessions.Service
      const agents = yield* Agents.Service
      const locations = yield* Locations.Service
      const toolCalls = yield* ToolCalls.Service
      const control = yield* SessionControl.Service
      const questions = yield* Questions.Service
      const timings = { ...defaults, ...options }
      const progressInterval = Duration.toMillis(timings.progressInterval)
      const disconnectGrace = Duration.toMillis(timings.disconnectGrace)
      const idleTimeout = Duration.toMillis(timings.idleTimeout)
      const idleAfter = Duration.toMillis(timings.idleAfter)

      // Every effect started from an HTTP callback lives here: closing the layer interrupts them.
      const runFork = yield* FiberSet.makeRuntime<never>()
      const runPromise = yield* FiberSet.makeRuntimePromise<never>()

      const byMcpId = new Map<string, Entry>()
      const bySession = new Map<SessionId, Entry>()

      // A previous process cannot have kept its MCP sessions: their clients must reconnect.
      // (ToolCalls already failed the ones it left running or blocked.)
      for (const session of sessions.listUnsafe())
        if (session.source.startsWith("mcp:") && session.status === "idle")
          yield* sessions.setStatus(session.id, "stopped", { reason: RESTARTED, from: ["idle"] }).pipe(Effect.ignore)

      const setStatus = (entry: Entry, status: SessionStatus, from: ReadonlyArray<SessionStatus>, reason?: string) =>
        sessions
          .setStatus(entry.session.id, status, { from, ...(reason !== undefined ? { reason } : {}) })
          .pipe(Effect.ignore)

      // ---- session lifecycle -------------------------------------------------------------------

      const cancelCalls = (entry: Entry, reason: CancelReason) =>
        Effect.gen(function* () {
          const calls = [...entry.calls.values()]
          for (const call of calls) Deferred.doneUnsafe(call.cancel, Exit.succeed(reason))
          for (const call of calls) yield* Deferred.await(call.done)
        })

      /** Ends a session for good: its calls are interrupted, its transport closed, its Location released. */
      const end = (entry: Entry, reason: string) =>
        Effect.gen(function* () {
          if (entry.state === "ended") return
          entry.state = "ended"
          if (entry.timer) clearTimeout(entry.timer)
          if (entry.idleTimer) clearTimeout(entry.idleTimer)
          byMcpId.delete(entry.mcpSessionId)
          bySession.delete(entry.session.id)
          // A stopped or declined session keeps that status in history.
          yield* setStatus(entry, "stopped", ["running", "blocked", "idle"], reason)
          yield* cancelCalls(entry, "disconnected")
          yield* Effect.promise(() => entry.server.close().catch(() => undefined))
          yield* Scope.close(entry.scope, Exit.void)
        })

      const stop = Effect.fn("McpIngress.stop")(function* (sessionID: SessionId) {
        const entry = bySession.get(sessionID)
        if (!entry || entry.state !== "open") return
        entry.state = "stopped"
        yield* setStatus(entry, "stopped", ["running", "blocked", "idle", "declined"])
        yield* cancelCalls(entry, "stopped")
      })

      /** Arms the departure timer when nothing of the session is open any more. */
      const idleCheck = (entry: Entry) => {
        if (entry.state === "ended" || entry.connections > 0 || entry.calls.size > 0) return
        if (entry.timer) clearTimeout(entry.timer)
        entry.timer = setTimeout(
          () => runFork(end(entry, DISCONNECTED)),
          entry.sawStream ? disconnectGrace : idleTimeout,
        )
        entry.timer.unref()
      }

      /**
       * Counts an HTTP request of the session while it is open. A POST whose response closes
       * before it finished means the client went away from those requests: their calls end.
       */
      const track = (
        entry: Entry,
        res: ServerResponse,
        kind: "post" | "stream" | "other",
        ids: ReadonlyArray<RequestId> = [],
      ) => {
        entry.connections++
        if (kind === "stream") entry.sawStream = true
        if (entry.timer) clearTimeout(entry.timer)
        entry.timer = undefined
        res.once("close", () => {
          entry.connections--
          if (kind === "post" && !res.writableFinished)
            for (const id of ids) {
              const call = entry.calls.get(String(id))
              if (call) Deferred.doneUnsafe(call.cancel, Exit.succeed("disconnected"))
            }
          idleCheck(entry)
        })
      }

      yield* control.register({ owns: (sessionID) => bySession.get(sessionID)?.state === "open", stop })

      yield* Effect.addFinalizer(() =>
        Effect.forEach([...byMcpId.values()], (entry) => end(entry, Runner.SHUT_DOWN), {
          concurrency: "unbounded",
          discard: true,
        }),
      )

      // ---- calls -------------------------------------------------------------------------------

      const began = (entry: Entry) =>
        Effect.suspend(() => {
          entry.running++
          if (entry.idleTimer) clearTimeout(entry.idleTimer)
          entry.idleTimer = undefined
          // Compare-and-set: a session still `running` from the call before is not written again.
          return entry.running === 1 ? setStatus(entry, "running", ["idle", "declined"]) : Effect.void
        })

      const toIdle = (entry: Entry) => setStatus(entry, "idle", ["running", "blocked"])

      const ended = (entry: Entry) =>
        Effect.suspend(() => {
          entry.running--
          if (entry.running > 0 || entry.state !== "open") return Effect.void
          if (idleAfter <= 0) return toIdle(entry)
          entry.idleTimer = setTimeout(() => {
            entry.idleTimer = undefined
            if (entry.running === 0 && entry.state === "open") runFork(toIdle(entry))
          }, idleAfter)
          entry.idleTimer.unref()
          return Effect.void
        })

      const runCall = (
        entry: Entry,
        callID: string,
        name: string,
        input: unknown,
        cancel: Deferred.Deferred<CancelReason>,
      ) =>
        Effect.acquireUseRelease(
          began(entry),
          () =>
            settleCall(toolCalls, entry.context, { callID, name, input, cancel }).pipe(
              // Before the call counts as ended, so `declined` is what the session shows after it.
              Effect.tap((ending) =>
                ending._tag === "declined"
                  ? setStatus(entry, "declined", ["running", "blocked", "idle"], ending.reason)
                  : Effect.void,
              ),
            ),
          () => ended(entry),
        ).pipe(Effect.map((ending) => ending.result))

      /** Sends `notifications/progress` while the call runs, if the client asked for it. */
      const reportProgress = (entry: Entry, callID: string, extra: Extra) => {
        const token = extra._meta?.progressToken
        if (token === undefined) return () => undefined
        let progress = 0
        const timer = setInterval(() => {
          progress++
          const ours = (source: { readonly messageID: string; readonly callID: string } | undefined) =>
            source?.messageID === entry.context.messageID && source.callID === callID
          const waiting =
            entry.context.handle.permission.listUnsafe().some((request) => ours(request.source)) ||
            questions.listUnsafe().some((request) => ours(request.tool))
          const message = waiting ? "Waiting for approval in Gatehouse" : "Running"
          extra
            .sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message } })
            .catch(() => undefined)
        }, progressInterval)
        timer.unref()
        return () => clearInterval(timer)
      }

      const callTool = async (
        holder: { entry?: Entry },
        params: { readonly name: string; readonly arguments?: Record<string, unknown> | undefined },
        extra: Extra,
      ): Promise<CallToolResult> => {
        const entry = holder.entry
        if (!entry || entry.state === "ended") return errorResult(DISCONNECTED)
        if (entry.state === "stopped") return errorResult(STOPPED_TEXT)
        const callID = String(extra.requestId)
        if (entry.calls.has(callID)) return errorResult(`Request id ${callID} is already in use by a running call`)
        const call: Call = { cancel: Deferred.makeUnsafe(), done: Deferred.makeUnsafe() }
        entry.calls.set(callID, call)
        const onAbort = () => Deferred.doneUnsafe(call.cancel, Exit.succeed("cancelled"))
        if (extra.signal.aborted) onAbort()
        else extra.signal.addEventListener("abort", onAbort, { once: true })
        const stopProgress = reportProgress(entry, callID, extra)
        try {
          return await runPromise(runCall(entry, callID, params.name, params.arguments ?? {}, call.cancel))
        } catch {
          return errorResult(SHUTTING_DOWN_TEXT)
        } finally {
          stopProgress()
          extra.signal.removeEventListener("abort", onAbort)
          entry.calls.delete(callID)
          Deferred.doneUnsafe(call.done, Exit.void)
          idleCheck(entry)
        }
      }

      const listTools = (entry: Entry) =>
        entry.context.handle.registry
          .materialize(entry.context.rules)
          .pipe(Effect.map((catalog) => catalog.definitions.map(toMcpTool)))

      // ---- the route ---------------------------------------------------------------------------

      const makeServer = (holder: { entry?: Entry }, project: Project, agent: string) => {
        const server = new Server(
          { name: "gatehouse", title: "Gatehouse", version: appInfo.version },
          { capabilities: { tools: {} }, instructions: instructions(project, agent) },
        )
        server.setRequestHandler(ListToolsRequestSchema, async () => {
          const entry = holder.entry
          if (!entry || entry.state === "ended") throw new McpError(ErrorCode.InvalidRequest, DISCONNECTED)
          return { tools: await runPromise(listTools(entry)) }
        })
        server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(holder, request.params, extra))
        // Failed sends to a client that went away are expected; they must not reach stderr as errors.
        server.onerror = () => undefined
        return server
      }

      /** Binds a new Gatehouse session to an MCP session when its transport has made the id. */
      const open = (
        mcpSessionId: string,
        project: Project,
        agent: Agents.Agent,
        client: ClientInfo,
        server: Server,
        transport: StreamableHTTPServerTransport,
      ) =>
        Effect.gen(function* () {
          const session = yield* sessions.create({
            projectId: project.id,
            agent: agent.name,
            title: titleOf(client),
            source: sourceOf(client),
            status: "idle",
          })
          const scope = yield* Scope.make()
          // Held for as long as the MCP session lives: its asks and registrations stay put.
          const handle = yield* Scope.provide(scope)(locations.acquire(project.id)).pipe(
            Effect.tapError(() => Scope.close(scope, Exit.void)),
            Effect.orDie,
          )
          const entry: Entry = {
            mcpSessionId,
            session,
            client,
            context: {
              sessionID: session.id,
              agent: agent.name,
              messageID: `mcp_${session.id}`,
              handle,
              rules: agent.rules,
            },
            scope,
            server,
            transport,
            calls: new Map(),
            state: "open",
            running: 0,
            connections: 0,
            sawStream: false,
            timer: undefined,
            idleTimer: undefined,
          }
          byMcpId.set(mcpSessionId, entry)
          bySession.set(session.id, entry)
          return entry
        })

      const initialize = async (
        req: IncomingMessage,
        res: ServerResponse,
        body: unknown,
        init: InitializeRequest & { id: RequestId },
      ) => {
        const refuse = (message: string) => sendJsonRpcError(res, 400, Codes.invalidParams, message, { id: init.id })
        const parsed = parseBinding(new URL(req.url ?? "/", "http://127.0.0.1").searchParams)
        if (parsed._tag === "invalid") return refuse(parsed.reason)
        const project = await runPromise(Effect.result(projects.ensure(parsed.binding.project)))
        if (project._tag === "Failure") return refuse(project.failure.message)
        const agent = agents.get(parsed.binding.agent, project.success.directory)
        if (!agent) {
          const known = agents
            .list()
            .filter((candidate) => !candidate.hidden)
            .map((candidate) => candidate.name)
          return refuse(`Unknown agent: ${parsed.binding.agent} (agents: ${known.join(", ")})`)
        }
        const client = clientInfoOf(init.params)
        const holder: { entry?: Entry } = {}
        const server = makeServer(holder, project.success, agent.name)
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          // 122 random bits from the CSPRNG, visible ASCII: never guessable, never an identity.
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: async (mcpSessionId) => {
            const entry = await runPromise(open(mcpSessionId, project.success, agent, client, server, transport))
            holder.entry = entry
            track(entry, res, "post", [init.id])
          },
          onsessionclosed: async (mcpSessionId) => {
            const entry = byMcpId.get(mcpSessionId)
            if (entry) await runPromise(end(entry, DISCONNECTED))
          },
          // The loopback server checked Host and Origin already; the SDK checks them again.
          enableDnsRebindingProtection: true,
          allowedHosts: [...allowedHosts(http.port)],
          allowedOrigins: [...allowedOrigins(http.port)],
        })
        await server.connect(transport)
        await transport.handleRequest(req, res, body)
        // Refused before a session existed (Accept header, a second initialize, …): nothing to keep.
        if (!holder.entry) await server.close().catch(() => undefined)
      }

      const route = async (req: IncomingMessage, res: ServerResponse) => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1")
        if (url.pathname !== path) return sendJsonRpcError(res, 404, Codes.badRequest, "Not found")
        const method = req.method ?? "GET"
        if (method !== "GET" && method !== "POST" && method !== "DELETE")
          return sendJsonRpcError(res, 405, Codes.badRequest, "Method not allowed.", {
            headers: { Allow: "GET, POST, DELETE" },
          })
        const header = req.headers["mcp-session-id"]
        const mcpSessionId = typeof header === "string" && header !== "" ? header : undefined

        if (method === "POST") {
          // Checked before reading: a form or text/plain POST (what a web page can send without
          // a preflight) is refused unread.
          if (!isJsonContentType(req.headers["content-type"]))
            return sendJsonRpcError(
              res,
              415,
              Codes.badRequest,
              "Unsupported Media Type: Content-Type must be application/json",
            )
          const read = await readBody(req)
          if (read._tag === "aborted") return void res.destroy()
          if (read._tag === "tooLarge")
            return sendJsonRpcError(res, 413, Codes.badRequest, "Payload Too Large: the request body exceeds 4 MiB")
          let body: unknown
          try {
            body = JSON.parse(read.text)
          } catch {
            return sendJsonRpcError(res, 400, Codes.parseError, "Parse error: Invalid JSON")
          }
          if (mcpSessionId === undefined) {
            const init = (Array.isArray(body) ? body : [body]).find(isInitializeRequest)
            if (!init)
              return sendJsonRpcError(res, 400, Codes.badRequest, "Bad Request: Mcp-Session-Id header is required")
            return initialize(req, res, body, init as InitializeRequest & { id: RequestId })
          }
          const entry = byMcpId.get(mcpSessionId)
          if (!entry) return sendJsonRpcError(res, 404, Codes.sessionNotFound, "Session not found")
          track(entry, res, "post", requestIdsOf(body))
          return entry.transport.handleRequest(req, res, body)
        }

        if (mcpSessionId === undefined)
          return sendJsonRpcError(res, 400, Codes.badRequest, "Bad Request: Mcp-Session-Id header is required")
        const entry = byMcpId.get(mcpSessionId)
        if (!entry) return sendJsonRpcError(res, 404, Codes.sessionNotFound, "Session not found")
        track(entry, res, method === "GET" ? "stream" : "other")
        return entry.transport.handleRequest(req, res)
      }

      yield* http.mount({
        prefix: path,
        auth: "agent",
        request: (req, res) => {
          route(req, res).catch((error: unknown) => {
            runFork(Effect.logError("MCP request failed", error))
            if (res.headersSent) res.destroy()
            else sendJsonRpcError(res, 500, ErrorCode.InternalError, "Internal server error")
          })
        },
      })

      const liveUnsafe = () =>
        [...bySession.values()].map((entry): LiveSession => ({
          sessionID: entry.session.id,
          projectId: entry.session.projectId,
          agent: entry.context.agent,
          client: entry.client,
          calls: entry.calls.size,
          stopped: entry.state === "stopped",
        }))

      return Service.of({ liveUnsafe, stop })
    }),
  )
