import { Schema } from "effect"
import { PermissionRequestId, ProjectId, QuestionId, SavedApprovalId, SessionId } from "./ids"

/** Milliseconds since the Unix epoch. */
export const Millis = Schema.Number

export const Project = Schema.Struct({
  id: ProjectId,
  directory: Schema.String,
  name: Schema.String,
  createdAt: Millis,
})
export type Project = typeof Project.Type

export const SessionStatus = Schema.Literals(["running", "blocked", "idle", "stopped", "declined", "failed"])
export type SessionStatus = typeof SessionStatus.Type

export const Session = Schema.Struct({
  id: SessionId,
  projectId: ProjectId,
  agent: Schema.String,
  title: Schema.String,
  /** `runner`, `mcp:<client name>` or `opencode:<server>`. */
  source: Schema.String,
  status: SessionStatus,
  /** Why the session is in its status, when there is more to say: a failure, a restart, a step limit. */
  reason: Schema.optionalKey(Schema.String),
  /** The provider that drives a runner session (its name under `providers`, or its type). */
  provider: Schema.optionalKey(Schema.String),
  createdAt: Millis,
  updatedAt: Millis,
})
export type Session = typeof Session.Type

/** What a permission rule does when it is the last one matching (SPEC-CORE D.1). */
export const PermissionEffect = Schema.Literals(["allow", "deny", "ask"])
export type PermissionEffect = typeof PermissionEffect.Type

/** `action` and `resource` are wildcard patterns (`*` any run, `?` one character). */
export const PermissionRule = Schema.Struct({
  action: Schema.String,
  resource: Schema.String,
  effect: PermissionEffect,
})
export type PermissionRule = typeof PermissionRule.Type

/** The tool call an ask came from. */
export const PermissionSource = Schema.Struct({
  type: Schema.Literal("tool"),
  messageID: Schema.String,
  callID: Schema.String,
})
export type PermissionSource = typeof PermissionSource.Type

/** A pending ask as the inbox shows it (`permission.v2.asked`); the agent is kept out on purpose. */
export const PermissionRequest = Schema.Struct({
  id: PermissionRequestId,
  sessionID: SessionId,
  action: Schema.String,
  /** Every resource must be allowed for the call to pass. */
  resources: Schema.Array(Schema.String),
  /** The patterns an `always` answer saves for the project (none: `always` acts as `once`). */
  save: Schema.optional(Schema.Array(Schema.String)),
  metadata: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  source: Schema.optional(PermissionSource),
})
export type PermissionRequest = typeof PermissionRequest.Type

export const PermissionReply = Schema.Literals(["once", "always", "reject"])
export type PermissionReply = typeof PermissionReply.Type

/** A project-wide `allow` saved by an `always` answer or added by the person. */
export const SavedApproval = Schema.Struct({
  id: SavedApprovalId,
  projectID: ProjectId,
  action: Schema.String,
  /** A wildcard pattern, matched like a configured rule's resource. */
  resource: Schema.String,
  createdAt: Millis,
  /** The ask whose `always` answer saved it; absent when the person added it by hand. */
  requestID: Schema.NullOr(PermissionRequestId),
  /** How many asks it decided (it was the last matching rule of an allowed call). */
  hitCount: Schema.Int,
  lastUsedAt: Schema.NullOr(Millis),
})
export type SavedApproval = typeof SavedApproval.Type

/**
 * How an ask ended. `corrected` = rejected with feedback, `cascade` = rejected with its session,
 * `auto` = approved by a later `always`, `interrupted` = its waiter or process went away,
 * `expired` = timed out.
 */
export const PermissionStatus = Schema.Literals([
  "pending",
  "once",
  "always",
  "reject",
  "corrected",
  "cascade",
  "auto",
  "interrupted",
  "expired",
])
export type PermissionStatus = typeof PermissionStatus.Type

/** Who or what decided an ask: the person, saved approvals, a configured rule, or Gatehouse itself. */
export const PermissionDecider = Schema.Literals(["person", "approval", "rule", "system"])
export type PermissionDecider = typeof PermissionDecider.Type

/** One row of the decision log: an ask, and how it ended once it did. */
export const PermissionDecision = Schema.Struct({
  id: PermissionRequestId,
  sessionID: SessionId,
  projectID: ProjectId,
  action: Schema.String,
  resources: Schema.Array(Schema.String),
  save: Schema.NullOr(Schema.Array(Schema.String)),
  metadata: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown)),
  source: Schema.NullOr(PermissionSource),
  agent: Schema.NullOr(Schema.String),
  status: PermissionStatus,
  decidedBy: Schema.NullOr(PermissionDecider),
  /** The saved approvals that decided an `auto` ask. */
  approvalIDs: Schema.NullOr(Schema.Array(SavedApprovalId)),
  feedback: Schema.NullOr(Schema.String),
  createdAt: Millis,
  decidedAt: Schema.NullOr(Millis),
  /** The connected agent server the ask came from (`opencode:<name>`); absent for Gatehouse's own asks. */
  connector: Schema.optionalKey(Schema.String),
  /** The ask's id on that server. */
  remoteID: Schema.optionalKey(Schema.String),
  /** Answered on the server itself (its TUI, another client), not in Gatehouse. */
  answeredRemotely: Schema.optionalKey(Schema.Boolean),
})
export type PermissionDecision = typeof PermissionDecision.Type

/** Where a todo stands (SPEC-CORE E.11); the values the reference's prompts use. */
export const TodoStatus = Schema.Literals(["pending", "in_progress", "completed", "cancelled"])
export type TodoStatus = typeof TodoStatus.Type

export const TodoPriority = Schema.Literals(["high", "medium", "low"])
export type TodoPriority = typeof TodoPriority.Type

/** One item of a session's todo list (`todowrite`); the list's order is the items' positions. */
export const Todo = Schema.Struct({
  content: Schema.String.annotate({ description: "Brief description of the task" }),
  status: TodoStatus.annotate({
    description: "Current status of the task: pending, in_progress, completed, cancelled",
  }),
  priority: TodoPriority.annotate({ description: "Priority level of the task: high, medium, low" }),
})
export type Todo = typeof Todo.Type

/** One choice offered by a question. */
export const QuestionOption = Schema.Struct({
  label: Schema.String.annotate({ description: "Display text (1-5 words, concise)" }),
  description: Schema.String.annotate({ description: "Explanation of choice" }),
})
export type QuestionOption = typeof QuestionOption.Type

/** The longest `header` a question may carry (SPEC-CORE E.12). */
export const QUESTION_HEADER_MAX_LENGTH = 30

/** One question the model asks the person (`question` tool, SPEC-CORE E.12). */
export const QuestionInfo = Schema.Struct({
  question: Schema.String.annotate({ description: "Complete question" }),
  header: Schema.String.check(Schema.isMaxLength(QUESTION_HEADER_MAX_LENGTH)).annotate({
    description: `Very short label (max ${QUESTION_HEADER_MAX_LENGTH} chars)`,
  }),
  options: Schema.Array(QuestionOption).annotate({ description: "Available choices" }),
  multiple: Schema.optional(Schema.Boolean).annotate({ description: "Allow selecting multiple choices" }),
})
export type QuestionInfo = typeof QuestionInfo.Type

/** The tool call a question came from. */
export const QuestionTool = Schema.Struct({ messageID: Schema.String, callID: Schema.String })
export type QuestionTool = typeof QuestionTool.Type

/** Questions waiting for the person (`question.v2.asked`); answered together, in order. */
export const QuestionRequest = Schema.Struct({
  id: QuestionId,
  sessionID: SessionId,
  questions: Schema.Array(QuestionInfo),
  tool: Schema.optional(QuestionTool),
})
export type QuestionRequest = typeof QuestionRequest.Type

/** The labels the person picked for one question; empty when they left it unanswered. */
export const QuestionAnswer = Schema.Array(Schema.String)
export type QuestionAnswer = typeof QuestionAnswer.Type

/**
 * How a question ended: `answered`, `rejected` (the person dismissed it), or `interrupted` (its
 * tool call was interrupted, or the process that asked it went away).
 */
export const QuestionStatus = Schema.Literals(["pending", "answered", "rejected", "interrupted"])
export type QuestionStatus = typeof QuestionStatus.Type

/** The tool call behind a pending ask or question, when Gatehouse recorded it (its name and input). */
export const PendingCall = Schema.Struct({
  /** The model-facing tool name (`bash`, `edit`, `apply_patch`, an MCP tool, …). */
  tool: Schema.String,
  /** The call's decoded input, as the tool received it. */
  input: Schema.Unknown,
})
export type PendingCall = typeof PendingCall.Type

/** A pending ask with the context the inbox shows beside it (`app.snapshot`). */
export const PendingAsk = Schema.Struct({
  request: PermissionRequest,
  /** When it was asked (the time in its ascending id). */
  askedAt: Millis,
  /** The session's agent: the one whose rules asked. */
  agent: Schema.String,
  projectID: ProjectId,
  /** The tool call that asked, when known. */
  call: Schema.NullOr(PendingCall),
})
export type PendingAsk = typeof PendingAsk.Type

/** Pending questions with the context the inbox shows beside them (`app.snapshot`). */
export const PendingQuestion = Schema.Struct({
  request: QuestionRequest,
  /** When they were asked (the time in the ascending id). */
  askedAt: Millis,
  agent: Schema.String,
  projectID: ProjectId,
})
export type PendingQuestion = typeof PendingQuestion.Type

/** Where a tool call stands: `running` until it ends; `interrupted` when its session or process ended first. */
export const ToolCallStatus = Schema.Literals(["running", "completed", "error", "interrupted"])
export type ToolCallStatus = typeof ToolCallStatus.Type

/** The kind of result the model received (SPEC-CORE A.4). */
export const ToolResultKind = Schema.Literals(["text", "json", "content", "error"])
export type ToolResultKind = typeof ToolResultKind.Type

/** One tool call of a session, as the `tool_call` table records it (runner and MCP calls alike). */
export const ToolCall = Schema.Struct({
  sessionID: SessionId,
  /** The assistant message (runner) or request (MCP) the call belongs to. */
  messageID: Schema.String,
  /** The call's id as the model or client gave it. */
  callID: Schema.String,
  tool: Schema.String,
  /** The input as the model sent it (not validated; the raw text when it was not JSON). */
  input: Schema.Unknown,
  status: ToolCallStatus,
  resultKind: Schema.NullOr(ToolResultKind),
  /** The text the model saw: the bounded output (files as `[file <mime> <name>]`) or the error. */
  preview: Schema.NullOr(Schema.String),
  /** Managed files holding what the preview left out. */
  outputPaths: Schema.Array(Schema.String),
  /** The error the model saw, for `error` and `interrupted` calls. */
  error: Schema.NullOr(Schema.String),
  startedAt: Millis,
  finishedAt: Schema.NullOr(Millis),
})
export type ToolCall = typeof ToolCall.Type

// --- Approvals editor, outputs viewer, session detail (UI part B) --------------------------------

/** The longest resource pattern a person may save by hand. */
export const RESOURCE_PATTERN_MAX_LENGTH = 2000

// Control characters and bidi controls would make a pattern read differently from what it matches.
const hiddenCharacter = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

/**
 * A resource pattern typed by a person (approvals add and edit): the wildcard language of the
 * rules (`*` any run, `?` one character), non-empty, without surrounding spaces, without control
 * or bidi characters, and of a sane length. The UI checks it as you type; the server decides.
 */
export const ResourcePattern = Schema.String.check(
  Schema.makeFilter((value: string) => {
    if (value.trim().length === 0) return "Enter a pattern, for example src/** or git status *"
    if (value.trim() !== value) return "Remove the spaces at the start or end: they would have to match exactly"
    if (value.length > RESOURCE_PATTERN_MAX_LENGTH)
      return `Keep the pattern under ${RESOURCE_PATTERN_MAX_LENGTH} characters`
    const hidden = hiddenCharacter.exec(value)
    if (hidden)
      return `Remove the invisible character U+${hidden[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`
    return true
  }),
)

/** A configured agent rule that makes a saved approval ineffective for that agent. */
export const ApprovalShadow = Schema.Struct({
  agent: Schema.String,
  /** The agent's configured `deny` that decides the approval's action and resource. */
  rule: PermissionRule,
  /** Its position in the agent's rules (0-based). */
  ruleIndex: Schema.Int,
})
export type ApprovalShadow = typeof ApprovalShadow.Type

/** The ask an approval was saved from, as the decision log remembers it. */
export const ApprovalOrigin = Schema.Struct({
  requestID: PermissionRequestId,
  sessionID: SessionId,
  /** The agent whose rules asked. */
  agent: Schema.NullOr(Schema.String),
  /** The resources the ask named. */
  resources: Schema.Array(Schema.String),
  askedAt: Millis,
})
export type ApprovalOrigin = typeof ApprovalOrigin.Type

/** A saved approval with what the editor shows beside it. */
export const ApprovalEntry = Schema.Struct({
  approval: SavedApproval,
  /** `null` when it was added by hand or its ask is no longer in the log. */
  origin: Schema.NullOr(ApprovalOrigin),
  /** Every agent a session can run as for which a configured deny makes it ineffective (empty: none). */
  shadowedBy: Schema.Array(ApprovalShadow),
})
export type ApprovalEntry = typeof ApprovalEntry.Type

/** An agent and its configured rules, as the approvals editor shows them (read-only). */
export const AgentInfo = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  mode: Schema.Literals(["primary", "subagent"]),
  /** Helpers no session runs as; their rules never decide a tool call. */
  hidden: Schema.Boolean,
  rules: Schema.Array(PermissionRule),
})
export type AgentInfo = typeof AgentInfo.Type

/** One line of a managed output file (`outputs.read`). */
export const OutputLine = Schema.Struct({
  /** 1-based line number in the file. */
  number: Schema.Int,
  text: Schema.String,
  /** The line is longer than a page shows; the file keeps it whole. */
  cut: Schema.Boolean,
})
export type OutputLine = typeof OutputLine.Type

// --- Connectors: agent servers Gatehouse supervises (OpenCode) ----------------------------------

/**
 * Where a connection to an agent server stands. `connecting`: the first attempt; `connected`: its
 * event stream is open and its asks are reconciled; `reconnecting`: the stream ended and the next
 * attempt waits (backoff); `unauthorized`: the server refused the credentials; `unreachable`: the
 * server could not be reached (or answered something that is not OpenCode).
 */
export const ConnectorState = Schema.Literals([
  "connecting",
  "connected",
  "reconnecting",
  "unauthorized",
  "unreachable",
])
export type ConnectorState = typeof ConnectorState.Type

/** One supervised agent server and how the connection to it stands (never its password). */
export const ConnectorInfo = Schema.Struct({
  /** Unique; its sessions have the source `opencode:<name>`. */
  name: Schema.String,
  kind: Schema.Literal("opencode"),
  url: Schema.String,
  /** The HTTP basic-auth user name, when a password is set. */
  username: Schema.NullOr(Schema.String),
  hasPassword: Schema.Boolean,
  /** `config`: from config.jsonc (changed there, read-only in the UI); `ui`: added in Gatehouse. */
  origin: Schema.Literals(["config", "ui"]),
  state: ConnectorState,
  /** What went wrong last, in words; `null` while connected. */
  detail: Schema.NullOr(Schema.String),
  /** When the next attempt starts (reconnecting, unauthorized, unreachable). */
  retryAt: Schema.NullOr(Millis),
  /** Since when the connection is in its state. */
  since: Millis,
  /** The server's version, once known. */
  version: Schema.NullOr(Schema.String),
  /** Asks of this server waiting in the inbox now. */
  pending: Schema.Int,
})
export type ConnectorInfo = typeof ConnectorInfo.Type
