import { Schema } from "effect"
import { PermissionRequestId, ProjectId, QuestionId, SavedApprovalId, SessionId, ToolOutputId } from "./ids"
import {
  ConnectorInfo,
  PermissionReply,
  PermissionRequest,
  Project,
  QuestionAnswer,
  QuestionRequest,
  SavedApproval,
  Session,
  Todo,
  ToolCall,
} from "./model"

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

/** An ask waits for the person (SPEC-CORE D.6); it carries the full request. */
export const PermissionAsked = Schema.TaggedStruct("permission.v2.asked", { request: PermissionRequest })
/** An ask was answered: by the person, by a cascade (`reject`) or by a later `always` (`always`). */
export const PermissionReplied = Schema.TaggedStruct("permission.v2.replied", {
  sessionID: SessionId,
  requestID: PermissionRequestId,
  reply: PermissionReply,
})
/** An ask left the inbox unanswered: its tool call was interrupted or its Location closed. */
export const PermissionWithdrawn = Schema.TaggedStruct("permission.v2.withdrawn", {
  sessionID: SessionId,
  requestID: PermissionRequestId,
})
export const ApprovalAdded = Schema.TaggedStruct("approval.added", { approval: SavedApproval })
/** Its resource pattern was edited, or it decided another ask (hit count, last used). */
export const ApprovalUpdated = Schema.TaggedStruct("approval.updated", { approval: SavedApproval })
/** Revoked: it no longer allows anything. */
export const ApprovalRemoved = Schema.TaggedStruct("approval.removed", { id: SavedApprovalId, projectID: ProjectId })

/** A session's whole todo list after a `todowrite` replaced it. */
export const TodosUpdated = Schema.TaggedStruct("session.todos.updated", {
  sessionID: SessionId,
  todos: Schema.Array(Todo),
})
/** Questions wait for the person (SPEC-CORE H.2); it carries the full request. */
export const QuestionAsked = Schema.TaggedStruct("question.v2.asked", { request: QuestionRequest })
/** The person answered; `answers[i]` holds the labels picked for question `i`. */
export const QuestionReplied = Schema.TaggedStruct("question.v2.replied", {
  sessionID: SessionId,
  requestID: QuestionId,
  answers: Schema.Array(QuestionAnswer),
})
/** The person dismissed the questions: the asking session stops, like after a decline. */
export const QuestionRejected = Schema.TaggedStruct("question.v2.rejected", {
  sessionID: SessionId,
  requestID: QuestionId,
})
/** Questions left the inbox unanswered: their tool call was interrupted or the process is closing. */
export const QuestionWithdrawn = Schema.TaggedStruct("question.v2.withdrawn", {
  sessionID: SessionId,
  requestID: QuestionId,
})

/** A tool call is about to run; written before the tool executes. */
export const ToolCallStarted = Schema.TaggedStruct("tool_call.started", { call: ToolCall })
/** A tool call ended: completed, failed with a model-visible error, or interrupted. */
export const ToolCallFinished = Schema.TaggedStruct("tool_call.finished", { call: ToolCall })

/** A connection to an agent server was added or changed state. */
export const ConnectorUpdated = Schema.TaggedStruct("connector.updated", { connector: ConnectorInfo })
/** A connection was removed: its asks left the inbox; its sessions stay in the history. */
export const ConnectorRemoved = Schema.TaggedStruct("connector.removed", { name: Schema.String })

export const AppEvent = Schema.Union([
  ProjectCreated,
  SessionCreated,
  SessionUpdated,
  ToolOutputCreated,
  ToolOutputDeleted,
  PermissionAsked,
  PermissionReplied,
  PermissionWithdrawn,
  ApprovalAdded,
  ApprovalUpdated,
  ApprovalRemoved,
  TodosUpdated,
  QuestionAsked,
  QuestionReplied,
  QuestionRejected,
  QuestionWithdrawn,
  ToolCallStarted,
  ToolCallFinished,
  ConnectorUpdated,
  ConnectorRemoved,
])
export type AppEvent = typeof AppEvent.Type

/** An event as it travels: with the bus's strictly increasing sequence number and its time. */
export const Envelope = Schema.Struct({ seq: Schema.Int, at: Schema.Number, event: AppEvent })
export type Envelope = typeof Envelope.Type

/** What one push carries: consecutive envelopes, oldest first. */
export const EventBatch = Schema.Struct({ events: Schema.Array(Envelope) })
export type EventBatch = typeof EventBatch.Type
