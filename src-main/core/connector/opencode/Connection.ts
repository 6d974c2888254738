import { Cause, Effect, Option, Schema, type Exit } from "effect"
import type { AppEvent } from "@contract/events"
import type { PermissionRequestId, ProjectId, SavedApprovalId, SessionId } from "@contract/ids"
import type { ConnectorInfo, ConnectorState, PermissionReply, PermissionRequest } from "@contract/model"
import { EventBus } from "../../events/EventBus"
import { newId } from "../../id/Identifier"
import { AskSources } from "../../permission/AskSources"
import { DecisionLog } from "../../permission/DecisionLog"
import { evaluateInput } from "../../permission/evaluate"
import { commit } from "../../permission/outbox"
import { PermissionV2 } from "../../permission/PermissionV2"
import { SavedApprovals } from "../../permission/SavedApprovals"
import { Projects } from "../../session/Projects"
import { Sessions } from "../../session/Sessions"
import { RESTARTED } from "../../session/ToolCalls"
import { Store } from "../../store/Store"
import { sql } from "../../store/sql"
import { delayMs, type Backoff } from "../backoff"
import * as Client from "./client"
import { authorization, reconcile, remoteMachine, sourceOf, toRequest } from "./mapping"
import * as Wire from "./wire"

// One supervised `opencode serve`: a fiber that keeps its event stream open (reconnecting with
// backoff), reconciles its pending asks on every (re)connect, mirrors its sessions as Gatehouse
// sessions, and an ask source through which the inbox lists and answers its asks.
//
// Every change of state runs in one synchronous block: the decision log row, the in-memory entry
// and the events (EventBus consistency rule). The event fiber is the only writer of entries that
// arrive; answers from the inbox run in the caller's fiber and meet the event fiber only through
// `settle`, which ends an entry at most once.

/** How a connection is configured (config.jsonc or the `connector` table). */
export interface Settings {
  readonly name: string
  readonly url: string
  readonly username?: string
  readonly password?: string
  readonly origin: "config" | "ui"
}

export interface Tuning {
  readonly backoff?: Backoff
  /** The stream is declared dead after this long without a byte (OpenCode beats every 10 s). */
  readonly idleTimeoutMs?: number
  readonly requestTimeoutMs?: number
}

/** What a connection runs on (all process-level). */
export type Services =
  | Store.Service
  | EventBus.Service
  | Projects.Service
  | Sessions.Service
  | SavedApprovals.Service
  | DecisionLog.Service
  | AskSources.Service

export interface Connection {
  readonly info: () => ConnectorInfo
  readonly source: AskSources.Source
  /** Answers `once` every pending ask of the project that the saved approvals now fully allow. */
  readonly approveAllowed: (projectID: ProjectId) => Effect.Effect<void>
}

/** What Gatehouse is telling the server, while it is on its way. */
type Answer =
  | { readonly kind: "person"; readonly reply: PermissionReply; readonly message?: string }
  | { readonly kind: "approval"; readonly approvalIDs: ReadonlyArray<SavedApprovalId> }

/** How an entry ends. */
type Ending = Answer | { readonly kind: "remote"; readonly reply: PermissionReply } | { readonly kind: "gone" }

interface Entry {
  readonly id: PermissionRequestId
  readonly remote: Wire.Ask
  readonly directory: string
  readonly projectID: ProjectId
  readonly request: PermissionRequest
  /** Shown in the inbox (an ask answered by a saved approval at once never is). */
  visible: boolean
  inflight: Answer | undefined
}

/** An absolute path on the server (POSIX or Windows), as opposed to `global` or nothing. */
const isServerPath = (directory: string) => directory.startsWith("/") || /^[A-Za-z]:[\\/]/.test(directory)

/** The client error a request or an attempt failed with (not a defect or an interruption). */
const clientErrorOf = <A, E extends Client.ClientError>(exit: Exit.Exit<A, E>): E | undefined =>
  exit._tag === "Failure" ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined

/** The server no longer has the ask (answered or dropped there). */
const isGone = (error: Client.ClientError | undefined) =>
  error?._tag === "OpencodeClient.HttpError" && error.status === 404

/** Failed attempts after a dropped stream that still count as reconnecting. */
const RECONNECTING_ATTEMPTS = 3

const MirrorRow = Schema.Struct({ session_id: Schema.String, directory: Schema.String })
const DirectoryRow = Schema.Struct({ directory: Schema.String })

/** Every saved approval among the deciding rules, once (the rules are all saved allows here). */
const approvalIdsOf = (rules: ReadonlyArray<object>): ReadonlyArray<SavedApprovalId> => [
  ...new Set(rules.flatMap((rule) => ("approvalID" in rule ? [(rule as SavedApprovals.SavedRule).approvalID] : []))),
]

export const make = Effect.fnUntraced(function* (settings: Settings, tuning: Tuning = {}) {
  const store = yield* Store.Service
  const bus = yield* EventBus.Service
  const projects = yield* Projects.Service
  const sessions = yield* Sessions.Service
  const saved = yield* SavedApprovals.Service
  const log = yield* DecisionLog.Service
  const sources = yield* AskSources.Service
  const scope = yield* Effect.scope

  const connector = sourceOf(settings.name)
  /** Another machine's server: its directories are projects of that machine, never resolved here. */
  const machine = remoteMachine(settings.url)
  const client = Client.make({
    url: settings.url,
    ...(tuning.requestTimeoutMs !== undefined ? { requestTimeoutMs: tuning.requestTimeoutMs } : {}),
    ...(authorization(settings.username, settings.password) !== undefined
      ? { authorization: authorization(settings.username, settings.password)! }
      : {}),
  })
  const idleTimeoutMs = tuning.idleTimeoutMs ?? 45_000

  const entries = new Map<PermissionRequestId, Entry>()
  const byRemote = new Map<string, Entry>()
  const mirrors = new Map<string, SessionId>()
  /** Server sessions whose directory cannot be a project (gone from this machine): said once, then skipped. */
  const unmirrorable = new Set<string>()
  /** Directories whose asks were reconciled on the current stream. */
  const reconciled = new Set<string>()
  /**
   * Remote ids of asks that ended by an answer (newest last, bounded): a listing taken just before
   * the answer landed must not bring the ask back.
   */
  const answered = new Set<string>()
  const ANSWERED_KEPT = 1000
  let defaultDirectory: string | undefined

  let status: {
    state: ConnectorState
    detail: string | null
    retryAt: number | null
    since: number
    version: string | null
  } = { state: "connecting", detail: null, retryAt: null, since: Date.now(), version: null }

  const visibleCount = () => [...entries.values()].filter((entry) => entry.visible).length

  const info = (): ConnectorInfo => ({
    name: settings.name,
    kind: "opencode",
    url: settings.url,
    username: settings.password ? (settings.username ?? "opencode") : null,
    hasPassword: Boolean(settings.password),
    origin: settings.origin,
    state: status.state,
    detail: status.detail,
    retryAt: status.retryAt,
    since: status.since,
    version: status.version,
    pending: visibleCount(),
  })

  const announce = () => bus.publishUnsafe({ _tag: "connector.updated", connector: info() })

  const setStatus = (next: Partial<typeof status> & { readonly state: ConnectorState }) =>
    Effect.sync(() => {
      const since = next.state === status.state ? status.since : Date.now()
      status = { ...status, detail: null, retryAt: null, ...next, since }
      announce()
    })

  // --- Sessions -------------------------------------------------------------------------------

  const mirrorOf = (remoteID: string): SessionId | undefined => {
    const cached = mirrors.get(remoteID)
    if (cached !== undefined && sessions.findUnsafe(cached)) return cached
    const row = store.get(
      MirrorRow,
      sql`SELECT session_id, directory FROM connector_session WHERE connector = ${settings.name} AND remote_id = ${remoteID}`,
    )
    if (!row || !sessions.findUnsafe(row.session_id as SessionId)) return undefined
    mirrors.set(remoteID, row.session_id as SessionId)
    return row.session_id as SessionId
  }

  /** The Gatehouse session mirroring a server session, created (with its project) on first sight. */
  const ensureSession = (remoteID: string, directory: string, known: Wire.Session | undefined, busy: boolean) =>
    Effect.gen(function* () {
      const existing = mirrorOf(remoteID)
      if (existing !== undefined) return existing
      if (unmirrorable.has(remoteID)) return undefined
      const remote =
        known ??
        (yield* client
          .get(`/session/${encodeURIComponent(remoteID)}`, Wire.Session, directory)
          .pipe(Effect.catch(() => Effect.succeed(undefined))))
      const where = remote?.directory ?? directory
      const project = yield* (
        machine === undefined ? projects.ensure(where) : projects.ensureRemote(machine, where)
      ).pipe(
        Effect.tapError((error) =>
          Effect.logWarning(`${connector}: session ${remoteID} and its asks are not shown: ${error.message}`),
        ),
        Effect.option,
      )
      if (project._tag === "None") {
        unmirrorable.add(remoteID)
        return undefined
      }
      const session = yield* sessions.create({
        projectId: project.value.id,
        agent: remote?.agent ?? "build",
        title: remote?.title ?? remoteID,
        source: connector,
        status: busy ? "running" : "idle",
      })
      yield* Effect.sync(() =>
        store.run(
          sql`INSERT INTO connector_session (connector, remote_id, session_id, directory)
              VALUES (${settings.name}, ${remoteID}, ${session.id}, ${where})
              ON CONFLICT (connector, remote_id) DO UPDATE SET session_id = excluded.session_id,
                directory = excluded.directory`,
        ),
      )
      mirrors.set(remoteID, session.id)
      return session.id
    })

  const waitingIn = (sessionID: SessionId) =>
    [...entries.values()].some((entry) => entry.visible && entry.request.sessionID === sessionID)

  /** Follows the server's busy/idle: running (blocked while an ask waits) or idle. */
  const followStatus = (sessionID: SessionId, busy: boolean) =>
    sessions.setStatus(sessionID, busy ? (waitingIn(sessionID) ? "blocked" : "running") : "idle").pipe(Effect.ignore)

  // --- Asks -----------------------------------------------------------------------------------

  const publishEnd = (entry: Entry, ending: Ending, outbox: Array<AppEvent>) => {
    if (!entry.visible) return
    if (ending.kind === "gone")
      outbox.push({ _tag: "permission.v2.withdrawn", sessionID: entry.request.sessionID, requestID: entry.id })
    else
      outbox.push({
        _tag: "permission.v2.replied",
        sessionID: entry.request.sessionID,
        requestID: entry.id,
        reply: ending.kind === "approval" ? "once" : ending.reply,
      })
  }

  /**
   * Ends an entry once: the log row, the saved approval of an `always`, the hit counts, the
   * events. A reject ends the session's other asks too (the server's own cascade). False when the
   * entry had already ended.
   */
  const settle = (entry: Entry, ending: Ending): boolean => {
    if (entries.get(entry.id) !== entry) return false
    const ended: Array<Entry> = [entry]
    commit(
      store,
      bus,
      (outbox) => {
        const now = Date.now()
        switch (ending.kind) {
          case "gone":
            log.recordDecidedUnsafe(entry.id, { status: "interrupted", decidedBy: "system" }, now)
            break
          case "approval":
            log.recordDecidedUnsafe(
              entry.id,
              { status: "auto", decidedBy: "approval", approvalIDs: ending.approvalIDs },
              now,
            )
            saved.recordHitsUnsafe(ending.approvalIDs, now, outbox)
            break
          case "remote":
            log.recordDecidedUnsafe(entry.id, { status: ending.reply, decidedBy: "person", remotely: true }, now)
            break
          case "person": {
            if (ending.reply === "reject") {
              log.recordDecidedUnsafe(
                entry.id,
                ending.message
                  ? { status: "corrected", decidedBy: "person", feedback: ending.message }
                  : { status: "reject", decidedBy: "person" },
                now,
              )
              for (const other of entries.values()) {
                // An ask with its own answer on the way ends as the server says (`permission.replied`).
                if (other === entry || other.remote.sessionID !== entry.remote.sessionID || other.inflight) continue
                log.recordDecidedUnsafe(other.id, { status: "cascade", decidedBy: "person" }, now)
                ended.push(other)
              }
              break
            }
            log.recordDecidedUnsafe(entry.id, { status: ending.reply, decidedBy: "person" }, now)
            const save = ending.reply === "always" ? (entry.request.save ?? []) : []
            if (save.length > 0)
              saved.addUnsafe(
                { projectID: entry.projectID, action: entry.request.action, resources: save, requestID: entry.id },
                now,
                outbox,
              )
            break
          }
        }
        publishEnd(entry, ending, outbox)
        for (const other of ended.slice(1)) publishEnd(other, { kind: "person", reply: "reject" }, outbox)
      },
      () => {
        for (const gone of ended) {
          entries.delete(gone.id)
          byRemote.delete(gone.remote.id)
          if (ending.kind !== "gone") answered.add(gone.remote.id)
        }
        for (const old of answered) {
          if (answered.size <= ANSWERED_KEPT) break
          answered.delete(old)
        }
      },
    )
    announce()
    return true
  }

  /** The saved approvals that allow every pattern of an ask in its project, if they all do. */
  const allowedBy = (projectID: ProjectId, request: PermissionRequest) => {
    if (request.resources.length === 0) return undefined
    const decision = evaluateInput({
      action: request.action,
      resources: request.resources,
      configured: [],
      saved: saved.rulesUnsafe(projectID),
    })
    return decision.effect === "allow" ? approvalIdsOf(decision.decisive) : undefined
  }

  /** Tells the server an answer; false when it could not (the entry stays as it is). */
  const deliver = (entry: Entry, answer: Answer) =>
    client.post(
      `/permission/${encodeURIComponent(entry.remote.id)}/reply`,
      answer.kind === "person" && answer.reply === "reject"
        ? answer.message
          ? { reply: "reject", message: answer.message }
          : { reply: "reject" }
        : { reply: "once" },
      entry.directory,
    )

  /** `deliver`, and an answer cut short (Gatehouse shutting down) no longer counts as on its way. */
  const sending = (entry: Entry, answer: Answer) =>
    deliver(entry, answer).pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          if (entry.inflight === answer) entry.inflight = undefined
        }),
      ),
    )

  const show = (entry: Entry) =>
    Effect.sync(() => {
      if (entries.get(entry.id) !== entry || entry.visible) return
      entry.visible = true
      bus.publishUnsafe({ _tag: "permission.v2.asked", request: entry.request })
      announce()
    })

  /** A saved approval answers the ask `once`; if the server cannot be told, it waits in the inbox. */
  const autoApprove = (entry: Entry, approvalIDs: ReadonlyArray<SavedApprovalId>) =>
    Effect.gen(function* () {
      if (entry.inflight || entries.get(entry.id) !== entry) return
      const answer: Answer = { kind: "approval", approvalIDs }
      entry.inflight = answer
      const exit = yield* Effect.exit(sending(entry, answer))
      if (exit._tag === "Success") return void settle(entry, answer)
      if (entries.get(entry.id) !== entry) return
      entry.inflight = undefined
      if (isGone(clientErrorOf(exit))) return void settle(entry, { kind: "gone" })
      yield* show(entry)
    })

  const arrive = (ask: Wire.Ask, directory: string) =>
    Effect.gen(function* () {
      if (byRemote.has(ask.id) || answered.has(ask.id)) return
      const sessionID = yield* ensureSession(ask.sessionID, directory, undefined, true)
      if (sessionID === undefined || byRemote.has(ask.id) || answered.has(ask.id)) return
      const session = sessions.findUnsafe(sessionID)
      if (!session) return
      const id = newId.permissionRequest()
      const request = toRequest(ask, id, sessionID)
      const approvals = allowedBy(session.projectId, request)
      const entry: Entry = {
        id,
        remote: ask,
        directory,
        projectID: session.projectId,
        request,
        visible: approvals === undefined,
        inflight: undefined,
      }
      yield* Effect.sync(() =>
        commit(
          store,
          bus,
          (outbox) => {
            log.recordAskedUnsafe({
              request,
              projectID: session.projectId,
              agent: session.agent,
              now: Date.now(),
              connector: { name: connector, remoteID: ask.id },
            })
            if (entry.visible) outbox.push({ _tag: "permission.v2.asked", request })
          },
          () => {
            entries.set(id, entry)
            byRemote.set(ask.id, entry)
          },
        ),
      )
      if (entry.visible) yield* followStatus(sessionID, true)
      yield* Effect.sync(announce)
      if (approvals !== undefined) yield* Effect.forkIn(autoApprove(entry, approvals), scope)
    })

  const reply = Effect.fn("OpencodeConnection.reply")(function* (input: PermissionV2.ReplyInput) {
    const entry = entries.get(input.requestID)
    if (!entry || !entry.visible) return yield* new PermissionV2.NotFoundError({ requestID: input.requestID })
    if (entry.inflight)
      return yield* new AskSources.ForwardError({
        requestID: input.requestID,
        reason: "another answer to this ask is on its way",
      })
    const answer: Answer = {
      kind: "person",
      reply: input.reply,
      ...(input.reply === "reject" && input.message ? { message: input.message } : {}),
    }
    entry.inflight = answer
    const exit = yield* Effect.exit(sending(entry, answer))
    // The server's `permission.replied` may have ended the entry already, with this very answer.
    if (exit._tag === "Success") return void settle(entry, answer)
    // Ended meanwhile by another answer (OpenCode's TUI, another client): this one did not count.
    if (entries.get(entry.id) !== entry) return yield* new PermissionV2.NotFoundError({ requestID: input.requestID })
    entry.inflight = undefined
    const error = clientErrorOf(exit)
    if (isGone(error)) {
      settle(entry, { kind: "gone" })
      return yield* new PermissionV2.NotFoundError({ requestID: input.requestID })
    }
    return yield* new AskSources.ForwardError({
      requestID: input.requestID,
      reason: `${settings.name}: ${error?.message ?? "the server could not be told"}`,
    })
  })

  const approveAllowed = (projectID: ProjectId) =>
    Effect.forEach(
      [...entries.values()].filter((entry) => entry.projectID === projectID && entry.visible && !entry.inflight),
      (entry) => {
        const approvals = allowedBy(projectID, entry.request)
        return approvals === undefined ? Effect.void : autoApprove(entry, approvals)
      },
      { concurrency: "unbounded", discard: true },
    )

  // --- Reconciliation and events --------------------------------------------------------------

  /**
   * Directories whose asks may be pending: the server's own, and those of every mirrored session
   * that was not deleted or stopped (an idle session may have asked while Gatehouse was down, and
   * a session waiting on an ask sends nothing that would name its directory).
   */
  const knownDirectories = () => {
    const rows = store.all(
      DirectoryRow,
      sql`SELECT DISTINCT c.directory FROM connector_session c JOIN session s ON s.id = c.session_id
          WHERE c.connector = ${settings.name} AND s.status <> 'stopped'`,
    )
    return new Set([
      ...(defaultDirectory !== undefined ? [defaultDirectory] : []),
      ...rows.map((row) => row.directory),
      ...[...entries.values()].map((entry) => entry.directory),
      ...reconciled,
    ])
  }

  const reconcileDirectory = (directory: string) =>
    Effect.gen(function* () {
      reconciled.add(directory)
      // Statuses first: OpenCode (1.18) keeps listing the asks of a session whose turn was aborted,
      // though nothing waits for their answer any more. Only a busy session's asks are live; one
      // that starts between the two requests announces its ask on the stream, applied after this.
      const statuses = yield* client.get("/session/status", Wire.SessionStatuses, directory)
      const busy = (remoteSessionID: string) => (statuses[remoteSessionID]?.type ?? "idle") !== "idle"
      const listed = (yield* client.get("/permission", Wire.Asks, directory)).filter((ask) => busy(ask.sessionID))
      const held = [...entries.values()].filter((entry) => entry.directory === directory)
      const diff = reconcile(
        held.map((entry) => entry.remote.id),
        listed,
      )
      for (const remoteID of diff.gone) {
        const entry = byRemote.get(remoteID)
        // An ask with an answer on its way ends when the server says how (reply or 404).
        if (entry && !entry.inflight) settle(entry, { kind: "gone" })
      }
      for (const ask of diff.arrived) yield* arrive(ask, directory)
      for (const [remoteID, value] of Object.entries(statuses)) {
        if (value.type === "idle") continue
        const sessionID = yield* ensureSession(remoteID, directory, undefined, true)
        if (sessionID !== undefined) yield* followStatus(sessionID, true)
      }
      // Mirrors the server no longer reports busy (or a restart of Gatehouse failed) are idle now.
      const rows = store.all(
        Schema.Struct({ remote_id: Schema.String, session_id: Schema.String }),
        sql`SELECT c.remote_id, c.session_id FROM connector_session c JOIN session s ON s.id = c.session_id
            WHERE c.connector = ${settings.name} AND c.directory = ${directory}
              AND (s.status IN ('running', 'blocked') OR (s.status = 'failed' AND s.status_reason = ${RESTARTED}))`,
      )
      for (const row of rows) if (!busy(row.remote_id)) yield* followStatus(row.session_id as SessionId, false)
    })

  /**
   * Reconciles one directory. One the server refuses (an HTTP error status, an odd answer) is
   * logged and tried again on its next event, without taking the connection down; a server that
   * cannot be reached or refuses the password still ends the attempt.
   */
  const reconcileSafely = (directory: string) =>
    reconcileDirectory(directory).pipe(
      Effect.catchTags({
        "OpencodeClient.HttpError": (error) => skipDirectory(directory, error.message),
        "OpencodeClient.InvalidResponseError": (error) => skipDirectory(directory, error.message),
      }),
    )

  const skipDirectory = (directory: string, reason: string) =>
    Effect.sync(() => reconciled.delete(directory)).pipe(
      Effect.andThen(Effect.logWarning(`${connector}: cannot list the asks in ${directory}: ${reason}`)),
    )

  const reconcileAll = Effect.gen(function* () {
    const directories = knownDirectories()
    reconciled.clear()
    for (const directory of directories) yield* reconcileSafely(directory)
  })

  /** Asks held for a directory (or one server session) with no answer on its way. */
  const heldIn = (directory: string, remoteSessionID?: string) =>
    [...entries.values()].some(
      (entry) =>
        entry.directory === directory &&
        !entry.inflight &&
        (remoteSessionID === undefined || entry.remote.sessionID === remoteSessionID),
    )

  const onEvent = (event: Wire.GlobalEvent) =>
    Effect.gen(function* () {
      const type = event.payload.type
      const properties = event.payload.properties
      if (type === "server.instance.disposed") {
        const gone = (properties as { directory?: unknown } | undefined)?.directory
        if (typeof gone !== "string" || !isServerPath(gone)) return
        reconciled.delete(gone)
        // A disposed instance drops its pending asks without replying to them: list what is left.
        if (heldIn(gone)) yield* reconcileSafely(gone)
        return
      }
      // Events about no directory in particular say `global` (or name none): only directories
      // that are paths on the server hold asks and sessions.
      if (event.directory !== undefined && !isServerPath(event.directory)) return
      const directory = event.directory ?? defaultDirectory
      if (directory === undefined) return
      // A directory seen for the first time on this stream may hold asks from before: list them.
      if (!reconciled.has(directory) && type !== "server.connected" && type !== "server.heartbeat")
        yield* reconcileSafely(directory)
      switch (type) {
        case "permission.asked":
        case "permission.updated": {
          const ask = Wire.decodeAsk(properties)
          if (ask._tag === "Some") yield* arrive(ask.value, directory)
          return
        }
        case "permission.replied": {
          const replied = Wire.decodeReplied(properties)
          if (replied._tag === "None") return
          const entry = byRemote.get(replied.value.requestID)
          if (!entry) return
          // Gatehouse's own answer when the server applied what it was sent; otherwise someone
          // else's answer got there first (and Gatehouse's will be refused).
          const mine = entry.inflight
          const sent =
            mine === undefined ? undefined : mine.kind === "person" && mine.reply === "reject" ? "reject" : "once"
          settle(
            entry,
            mine !== undefined && sent === replied.value.reply ? mine : { kind: "remote", reply: replied.value.reply },
          )
          return
        }
        case "session.created":
        case "session.updated": {
          const decoded = Wire.decodeSessionEvent(properties)
          if (decoded._tag === "None") return
          const remote = decoded.value.info
          const sessionID = yield* ensureSession(remote.id, remote.directory, remote, false)
          if (sessionID !== undefined && remote.title !== undefined)
            yield* sessions.setTitle(sessionID, remote.title).pipe(Effect.ignore)
          return
        }
        case "session.status": {
          const decoded = Wire.decodeSessionStatusEvent(properties)
          if (decoded._tag === "None") return
          const busy = decoded.value.status.type !== "idle"
          const sessionID = busy
            ? yield* ensureSession(decoded.value.sessionID, directory, undefined, true)
            : mirrorOf(decoded.value.sessionID)
          // A session that stops (aborted, interrupted) drops its asks without replying to them.
          if (!busy && heldIn(directory, decoded.value.sessionID)) yield* reconcileSafely(directory)
          if (sessionID !== undefined) yield* followStatus(sessionID, busy)
          return
        }
        case "session.deleted": {
          const decoded = Wire.decodeSessionEvent(properties)
          const sessionID = decoded._tag === "Some" ? mirrorOf(decoded.value.info.id) : undefined
          if (sessionID !== undefined)
            yield* sessions.setStatus(sessionID, "stopped", { reason: "Deleted in OpenCode" }).pipe(Effect.ignore)
          return
        }
        default:
          return
      }
    })

  // --- The connection loop --------------------------------------------------------------------

  /** One connection: open the stream, reconcile, follow events until the stream ends or fails. */
  const connectOnce = (connected: () => void) =>
    Effect.scoped(
      Effect.gen(function* () {
        const stream = yield* client.events
        const health = yield* client.get("/global/health", Wire.Health)
        const path = yield* client.get("/path", Wire.Path)
        defaultDirectory = path.directory
        yield* reconcileAll
        connected()
        yield* setStatus({ state: "connected", version: health.version ?? null })
        const next = stream.next.pipe(
          Effect.timeoutOrElse({
            duration: idleTimeoutMs,
            orElse: () =>
              Effect.fail(
                new Client.UnreachableError({ reason: `No event or heartbeat for ${idleTimeoutMs / 1000} s` }),
              ),
          }),
        )
        for (;;) {
          const events = yield* next
          if (events === null)
            return yield* new Client.UnreachableError({ reason: "The server closed its event stream" })
          for (const sse of events) {
            const decoded = Wire.decodeGlobalEvent(sse.data)
            // Not every event is Gatehouse's concern (or even JSON it knows): skip what does not decode.
            if (decoded._tag === "Some") yield* onEvent(decoded.value)
          }
        }
      }),
    )

  const loop = Effect.gen(function* () {
    let failures = 0
    let everConnected = false
    for (;;) {
      let connectedNow = false
      const exit = yield* Effect.exit(
        connectOnce(() => {
          connectedNow = true
          everConnected = true
        }),
      )
      const error = clientErrorOf(exit)
      if (exit._tag === "Failure" && !error) yield* Effect.logWarning(`${connector}: connection failed`, exit.cause)
      if (connectedNow) failures = 0
      // A dropped stream is "reconnecting" for a few attempts, then the server counts as unreachable.
      const state: ConnectorState =
        error?._tag === "OpencodeClient.UnauthorizedError"
          ? "unauthorized"
          : everConnected && failures < RECONNECTING_ATTEMPTS
            ? "reconnecting"
            : "unreachable"
      const wait = delayMs(failures, tuning.backoff)
      failures += 1
      yield* setStatus({
        state,
        detail: error?.message ?? "The connection failed",
        retryAt: Date.now() + wait,
        version: status.version,
      })
      yield* Effect.sleep(wait)
    }
  })

  // --- Lifetime -------------------------------------------------------------------------------

  const source: AskSources.Source = {
    pendingUnsafe: () =>
      [...entries.values()]
        .filter((entry) => entry.visible)
        .map((entry) => ({ request: entry.request, projectID: entry.projectID })),
    holdsUnsafe: (requestID) => entries.get(requestID)?.visible === true,
    reply,
  }
  yield* sources.register(source)

  // Closing the connection (removed, or Gatehouse shutting down) withdraws its asks: the server
  // keeps them, and the next connection finds them again by reconciling.
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      for (const entry of [...entries.values()]) settle(entry, { kind: "gone" })
    }),
  )
  yield* Effect.forkIn(loop, scope)

  return { info, source, approveAllowed } satisfies Connection
})
