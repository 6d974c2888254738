import { Context, Effect, Layer, Schema } from "effect"
import { SessionId } from "@contract/ids"
import { ToolCallStatus, ToolResultKind, type ToolCall } from "@contract/model"
import { EventBus } from "../events/EventBus"
import { Store } from "../store/Store"
import { sql } from "../store/sql"
import type { Tool } from "../tool/Tool"
import { Provider } from "./provider/Provider"
import { Sessions } from "./Sessions"

export * as ToolCalls from "./ToolCalls"

/** The message every call gets that did not run to its end (SPEC-CORE A.5). */
export const INTERRUPTED = "Tool execution interrupted"

/** Why sessions a previous process left running or blocked are failed when Gatehouse starts. */
export const RESTARTED = "Gatehouse restarted while the session was running"

/** What names one call: its session, the assistant message (or MCP request) and the call id. */
export interface Key {
  readonly sessionID: SessionId
  readonly messageID: string
  readonly callID: string
}

export interface StartInput extends Key {
  /** The model-facing tool name the call used. */
  readonly tool: string
  /** The input as the model sent it (unvalidated JSON, or the raw text it could not parse). */
  readonly input: unknown
}

/**
 * How a call ended. A registry `Settlement` is one as it is; callers that answer without settling
 * (invalid input, disabled tools, a session that stopped first) pass their own error result.
 */
export interface Outcome {
  /** The result the model receives. */
  readonly result: Tool.ResultValue
  readonly outputPaths?: ReadonlyArray<string>
  /** The call did not run to its end: its session stopped or was declined, or the process went away. */
  readonly interrupted?: boolean
}

/** A call with these keys was already recorded; call ids must be unique within a message. */
export class DuplicateError extends Schema.TaggedError<DuplicateError>()("ToolCalls.DuplicateError", {
  sessionID: Schema.String,
  messageID: Schema.String,
  callID: Schema.String,
}) {
  override get message() {
    return `Tool call ${this.callID} of message ${this.messageID} is already recorded`
  }
}

/** What recovery found when this process started. */
export interface Recovered {
  /** Calls a previous process left `running`, now `interrupted` (never replayed). */
  readonly interruptedCalls: number
  /** Sessions a previous process left running or blocked, now `failed` ({@link RESTARTED}). */
  readonly failedSessions: ReadonlyArray<SessionId>
}

/**
 * The `tool_call` table: every call a session makes, whoever runs it (the runner, MCP ingress).
 * A call is written `running` before its tool executes and finished exactly once, so a process
 * that dies mid-call leaves a row that the next start marks `interrupted`: side effects are never
 * silently replayed (SPEC-CORE A.5). Each write publishes `tool_call.started`/`tool_call.finished`
 * in the same synchronous step.
 *
 * Process-level: building the layer recovers once per process, before any session runs (see
 * {@link Recovered}).
 */
export interface Interface {
  readonly recovered: Recovered
  /** Records a call as `running`; call it before the tool executes. */
  readonly start: (input: StartInput) => Effect.Effect<ToolCall, Sessions.NotFoundError | DuplicateError>
  /**
   * Records how a running call ended; `undefined` when it was not running (unknown, or already
   * finished: a call is finished once, the first outcome stays).
   */
  readonly finish: (key: Key, outcome: Outcome) => Effect.Effect<ToolCall | undefined>
  /** The same, synchronously, for callers that finish calls inside their own atomic block. */
  readonly finishUnsafe: (key: Key, outcome: Outcome) => ToolCall | undefined
  readonly get: (key: Key) => Effect.Effect<ToolCall | undefined>
  /** A session's calls in the order they started. */
  readonly forSession: (sessionID: SessionId) => Effect.Effect<ReadonlyArray<ToolCall>>
  /** The same, synchronously, for snapshots (EventBus consistency rule). */
  readonly forSessionUnsafe: (sessionID: SessionId) => ReadonlyArray<ToolCall>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/session/ToolCalls") {}

const Json = Schema.fromJsonString(Schema.Unknown)
const Paths = Schema.fromJsonString(Schema.Array(Schema.String))

const Row = Schema.Struct({
  session_id: SessionId,
  message_id: Schema.String,
  call_id: Schema.String,
  tool: Schema.String,
  input: Json,
  status: ToolCallStatus,
  result_kind: Schema.NullOr(ToolResultKind),
  preview: Schema.NullOr(Schema.String),
  output_paths: Schema.NullOr(Paths),
  error: Schema.NullOr(Schema.String),
  started_at: Schema.Number,
  finished_at: Schema.NullOr(Schema.Number),
})
const columns = sql`session_id, message_id, call_id, tool, input, status, result_kind, preview, output_paths, error,
  started_at, finished_at`

const toToolCall = (row: typeof Row.Type): ToolCall => ({
  sessionID: row.session_id,
  messageID: row.message_id,
  callID: row.call_id,
  tool: row.tool,
  input: row.input,
  status: row.status,
  resultKind: row.result_kind,
  preview: row.preview,
  outputPaths: row.output_paths ?? [],
  error: row.error,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
})

/** JSON text for any input; a value JSON cannot hold (undefined, a cycle) is kept as its text. */
function inputJson(input: unknown): string {
  try {
    return JSON.stringify(input) ?? "null"
  } catch {
    return JSON.stringify(String(input))
  }
}

const Found = Schema.Struct({ found: Schema.Number })
const ActiveSession = Schema.Struct({ id: SessionId })

/**
 * Marks every call a previous process left `running` as interrupted and fails every session it
 * left running or blocked, in one transaction. Nothing is published: no client is connected yet.
 */
export function recoverAtStart(store: Store.Interface, now: number): Recovered {
  return store.transaction(() => {
    const calls = store.run(
      sql`UPDATE tool_call SET status = 'interrupted', error = ${INTERRUPTED}, finished_at = ${now}
          WHERE status = 'running'`,
    ).changes
    const sessions = store
      .all(ActiveSession, sql`SELECT id FROM session WHERE status IN ('running', 'blocked') ORDER BY id`)
      .map((row) => row.id)
    if (sessions.length > 0)
      store.run(
        sql`UPDATE session SET status = 'failed', status_reason = ${RESTARTED}, updated_at = ${now}
            WHERE status IN ('running', 'blocked')`,
      )
    return { interruptedCalls: calls, failedSessions: sessions }
  })
}

// Reads and writes the tables directly rather than through Sessions.Service: this layer sits beside
// Sessions in the composition root's domain tier, which only provides the infrastructure below it.
export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const store = yield* Store.Service
    const bus = yield* EventBus.Service

    const recovered = yield* Effect.sync(() => recoverAtStart(store, Date.now()))
    if (recovered.interruptedCalls > 0 || recovered.failedSessions.length > 0)
      yield* Effect.logWarning(
        `Marked ${recovered.interruptedCalls} tool call(s) left running by a previous run as interrupted and ` +
          `${recovered.failedSessions.length} session(s) as failed`,
      )

    const getUnsafe = (key: Key) => {
      const row = store.get(
        Row,
        sql`SELECT ${columns} FROM tool_call
            WHERE session_id = ${key.sessionID} AND message_id = ${key.messageID} AND call_id = ${key.callID}`,
      )
      return row && toToolCall(row)
    }

    type Started =
      | { readonly _tag: "missing" }
      | { readonly _tag: "duplicate" }
      | { readonly _tag: "started"; readonly call: ToolCall }

    const start = Effect.fn("ToolCalls.start")(function* (input: StartInput) {
      const started = yield* Effect.sync((): Started =>
        store.transaction(() => {
          if (store.get(Found, sql`SELECT 1 AS found FROM session WHERE id = ${input.sessionID}`) === undefined)
            return { _tag: "missing" }
          if (getUnsafe(input)) return { _tag: "duplicate" }
          const call: ToolCall = {
            sessionID: input.sessionID,
            messageID: input.messageID,
            callID: input.callID,
            tool: input.tool,
            input: input.input,
            status: "running",
            resultKind: null,
            preview: null,
            outputPaths: [],
            error: null,
            startedAt: Date.now(),
            finishedAt: null,
          }
          store.run(
            sql`INSERT INTO tool_call (session_id, message_id, call_id, tool, input, status, started_at)
                  VALUES (${call.sessionID}, ${call.messageID}, ${call.callID}, ${call.tool},
                    ${inputJson(call.input)}, 'running', ${call.startedAt})`,
          )
          bus.publishUnsafe({ _tag: "tool_call.started", call })
          return { _tag: "started", call }
        }),
      )
      switch (started._tag) {
        case "missing":
          return yield* new Sessions.NotFoundError({ sessionID: input.sessionID })
        case "duplicate":
          return yield* new DuplicateError({ ...input })
        case "started":
          return started.call
      }
    })

    const finishUnsafe = (key: Key, outcome: Outcome): ToolCall | undefined =>
      store.transaction(() => {
        const current = getUnsafe(key)
        if (!current || current.status !== "running") return undefined
        const result = outcome.result
        const failed = result.type === "error"
        const call: ToolCall = {
          ...current,
          status: outcome.interrupted ? "interrupted" : failed ? "error" : "completed",
          resultKind: result.type,
          preview: Provider.resultText(result),
          outputPaths: [...(outcome.outputPaths ?? [])],
          error: failed ? result.value : outcome.interrupted ? INTERRUPTED : null,
          finishedAt: Date.now(),
        }
        store.run(
          sql`UPDATE tool_call SET status = ${call.status}, result_kind = ${call.resultKind}, preview = ${call.preview},
                output_paths = ${call.outputPaths.length > 0 ? JSON.stringify(call.outputPaths) : null},
                error = ${call.error}, finished_at = ${call.finishedAt}
              WHERE session_id = ${key.sessionID} AND message_id = ${key.messageID} AND call_id = ${key.callID}
                AND status = 'running'`,
        )
        bus.publishUnsafe({ _tag: "tool_call.finished", call })
        return call
      })

    const forSessionUnsafe = (sessionID: SessionId) =>
      store
        .all(Row, sql`SELECT ${columns} FROM tool_call WHERE session_id = ${sessionID} ORDER BY started_at, rowid`)
        .map(toToolCall)

    return Service.of({
      recovered,
      start,
      finish: (key, outcome) => Effect.sync(() => finishUnsafe(key, outcome)),
      finishUnsafe,
      get: (key) => Effect.sync(() => getUnsafe(key)),
      forSession: (sessionID) => Effect.sync(() => forSessionUnsafe(sessionID)),
      forSessionUnsafe,
    })
  }),
)
