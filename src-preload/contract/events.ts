import { Schema } from "effect"
import { SessionId, ToolOutputId } from "./ids"
import { Project, Session } from "./model"

// One tagged union for every push event (SG-13). Tags are the domain's own event names
// (`permission.v2.asked` and friends come from SPEC-CORE H.2); later features add members here.

export const ProjectCreated = Schema.TaggedStruct("project.created", { project: Project })
export const SessionCreated = Schema.TaggedStruct("session.created", { session: Session })
export const SessionUpdated = Schema.TaggedStruct("session.updated", { session: Session })

/** A tool output too large for the model, kept in full under `<data dir>/tool-output/` for 7 days. */
export const ToolOutputFile = Schema.Struct({
  id: ToolOutputId,
  /** Absolute path of the file (the one the model's preview names). */
  path: Schema.String,
  /** UTF-8 size of the full text. */
  bytes: Schema.Int,
  /** Lines as `text.split("\n")` counts them. */
  lines: Schema.Int,
  sessionId: Schema.NullOr(SessionId),
  toolCallId: Schema.NullOr(Schema.String),
  /** The model-facing tool name. */
  tool: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  /** When the retention sweep may delete it. */
  expiresAt: Schema.Number,
})
export type ToolOutputFile = typeof ToolOutputFile.Type

export const ToolOutputCreated = Schema.TaggedStruct("tool_output.created", { output: ToolOutputFile })
/** `expired`: removed by the retention sweep; `deleted`: removed on request. */
export const ToolOutputDeleted = Schema.TaggedStruct("tool_output.deleted", {
  id: ToolOutputId,
  reason: Schema.Literals(["expired", "deleted"]),
})

export const AppEvent = Schema.Union([
  ProjectCreated,
  SessionCreated,
  SessionUpdated,
  ToolOutputCreated,
  ToolOutputDeleted,
])
export type AppEvent = typeof AppEvent.Type

/** An event as it travels: with the bus's strictly increasing sequence number and its time. */
export const Envelope = Schema.Struct({ seq: Schema.Int, at: Schema.Number, event: AppEvent })
export type Envelope = typeof Envelope.Type

/** What one push carries: consecutive envelopes, oldest first. */
export const EventBatch = Schema.Struct({ events: Schema.Array(Envelope) })
export type EventBatch = typeof EventBatch.Type
