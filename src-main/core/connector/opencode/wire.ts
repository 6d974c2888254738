import { Schema } from "effect"

// What `opencode serve` sends, as far as Gatehouse reads it (checked against opencode-ai 1.18's
// OpenAPI document at `GET /doc` and its real event stream). Unknown keys are ignored: the server
// adds fields between releases, and only these must hold.

/** A pending ask (`GET /permission`, the `permission.asked` event): OpenCode's V1 request. */
export const Ask = Schema.Struct({
  id: Schema.String,
  sessionID: Schema.String,
  /** The permission (`bash`, `edit`, `webfetch`, …): Gatehouse's action. */
  permission: Schema.String,
  /** What is asked for (the command, the relative path): Gatehouse's resources. */
  patterns: Schema.Array(Schema.String),
  /** What an `always` answer allows from now on: Gatehouse's save patterns. */
  always: Schema.optionalKey(Schema.Array(Schema.String)),
  /** `{ command }` for bash, `{ filepath, diff }` for edit, … */
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  tool: Schema.optionalKey(Schema.Struct({ messageID: Schema.String, callID: Schema.String })),
})
export type Ask = typeof Ask.Type

export const Asks = Schema.Array(Ask)

/** `permission.replied`: an ask was answered (by anyone; a reject also answers its session's others). */
export const Replied = Schema.Struct({
  sessionID: Schema.String,
  requestID: Schema.String,
  reply: Schema.Literals(["once", "always", "reject"]),
})
export type Replied = typeof Replied.Type

/** A session (`GET /session/<id>`, `session.created|updated|deleted` events). */
export const Session = Schema.Struct({
  id: Schema.String,
  directory: Schema.String,
  title: Schema.optionalKey(Schema.String),
  agent: Schema.optionalKey(Schema.String),
  parentID: Schema.optionalKey(Schema.String),
})
export type Session = typeof Session.Type

export const SessionEvent = Schema.Struct({ sessionID: Schema.String, info: Session })

/** `GET /session/status`: the sessions of one directory that are not idle. */
export const SessionStatus = Schema.Struct({ type: Schema.String })
export const SessionStatuses = Schema.Record(Schema.String, SessionStatus)
export const SessionStatusEvent = Schema.Struct({ sessionID: Schema.String, status: SessionStatus })

/** `GET /path`: where the server runs (its default directory). */
export const Path = Schema.Struct({ directory: Schema.String })

/** `GET /global/health`. */
export const Health = Schema.Struct({ healthy: Schema.Boolean, version: Schema.optionalKey(Schema.String) })

/** One event of `GET /global/event`: an instance's event, with the directory it happened in. */
export const GlobalEvent = Schema.Struct({
  directory: Schema.optionalKey(Schema.String),
  payload: Schema.Struct({ type: Schema.String, properties: Schema.optionalKey(Schema.Unknown) }),
})
export type GlobalEvent = typeof GlobalEvent.Type

export const decodeGlobalEvent = Schema.decodeUnknownOption(Schema.fromJsonString(GlobalEvent))
export const decodeAsk = Schema.decodeUnknownOption(Ask)
export const decodeReplied = Schema.decodeUnknownOption(Replied)
export const decodeSessionEvent = Schema.decodeUnknownOption(SessionEvent)
export const decodeSessionStatusEvent = Schema.decodeUnknownOption(SessionStatusEvent)
