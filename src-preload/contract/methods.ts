import { Schema } from "effect"
import type { Method } from "./channels"
import { PermissionRequestId, QuestionId, SessionId } from "./ids"
import { ConnectorInfo, PendingAsk, PendingQuestion, PermissionReply, Project, QuestionAnswer, Session } from "./model"
import { ProjectId, SavedApprovalId, ToolOutputId } from "./ids"
import {
  AgentInfo,
  ApprovalEntry,
  OutputLine,
  PermissionDecision,
  PermissionStatus,
  SavedApproval,
  SessionStatus,
  Todo,
  ToolCall,
} from "./model"
import { ToolOutputFile } from "./events"

// Every method of the contract with its payload, success and error schemas (SG-9).
// Errors travel as data: the transport encodes `Schema.Exit(success, error, Defect)`.

/** The request could not be decoded, or named something that is not there. */
export class InvalidRequestError extends Schema.TaggedError<InvalidRequestError>()("Contract.InvalidRequestError", {
  method: Schema.String,
  reason: Schema.String,
}) {
  override get message() {
    return `Invalid ${this.method} request: ${this.reason}`
  }
}

export const AppInfo = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  dataDir: Schema.String,
  /** The event sequence number at the time of the answer. */
  seq: Schema.Int,
  /** `electron` or `headless`. */
  host: Schema.Literals(["electron", "headless"]),
})
export type AppInfo = typeof AppInfo.Type

/** Everything the UI shows, as of event `seq`; later features add their collections. */
export const Snapshot = Schema.Struct({
  seq: Schema.Int,
  projects: Schema.Array(Project),
  sessions: Schema.Array(Session),
  /** Every pending ask of every live Location, oldest first. */
  asks: Schema.Array(PendingAsk),
  /** Every pending question, oldest first. */
  questions: Schema.Array(PendingQuestion),
  /** Every saved approval, oldest first. */
  approvals: Schema.Array(SavedApproval),
  /** Managed output files still on disk, newest first (at most the newest 1000). */
  outputs: Schema.Array(ToolOutputFile),
  /** Every supervised agent server (config.jsonc first, then the ones added in Gatehouse). */
  connectors: Schema.Array(ConnectorInfo),
})
export type Snapshot = typeof Snapshot.Type

/** The payload of a method that takes no input (`null` on the wire). */
export const NoPayload = Schema.Undefined

// --- Inbox: answering asks and questions -------------------------------------------------------

/** The ask is not pending anywhere: it was answered, withdrawn, or never existed. */
export class AskNotFoundError extends Schema.TaggedError<AskNotFoundError>()("PermissionV2.NotFoundError", {
  requestID: Schema.String,
}) {
  override get message() {
    return `Permission request not found: ${this.requestID}`
  }
}

/** The ask came from a connected agent server that could not be told the answer; it is still pending. */
export class AskForwardError extends Schema.TaggedError<AskForwardError>()("AskSources.ForwardError", {
  requestID: Schema.String,
  reason: Schema.String,
}) {
  override get message() {
    return `The answer could not be delivered: ${this.reason}`
  }
}

/** The session does not exist. */
export class SessionNotFoundError extends Schema.TaggedError<SessionNotFoundError>()("Sessions.NotFoundError", {
  sessionID: Schema.String,
}) {
  override get message() {
    return `Session not found: ${this.sessionID}`
  }
}

/** The question is not pending: it was answered, dismissed, withdrawn, or never existed. */
export class QuestionNotFoundError extends Schema.TaggedError<QuestionNotFoundError>()("Questions.NotFoundError", {
  requestID: Schema.String,
}) {
  override get message() {
    return `Question not found: ${this.requestID}`
  }
}

/** The answers do not fit the questions (more answers than questions, several for a single choice). */
export class QuestionInvalidReplyError extends Schema.TaggedError<QuestionInvalidReplyError>()(
  "Questions.InvalidReplyError",
  { requestID: Schema.String, reason: Schema.String },
) {
  override get message() {
    return `Invalid answers for question ${this.requestID}: ${this.reason}`
  }
}

/** Feedback the model reads with a reject; bounded so one answer cannot flood a context window. */
export const Feedback = Schema.String.check(Schema.isMaxLength(20_000))

/** The most asks one `permission.replyMany` answers (a whole 10 000-item inbox fits). */
export const REPLY_MANY_MAX = 20_000

export const PermissionReplyInput = Schema.Struct({
  requestID: PermissionRequestId,
  reply: PermissionReply,
  /** With `reject`: feedback the model reads (the call fails with it instead of stopping the session). */
  message: Schema.optional(Feedback),
})
export type PermissionReplyInput = typeof PermissionReplyInput.Type

export const PermissionReplyManyInput = Schema.Struct({
  requestIDs: Schema.Array(PermissionRequestId).check(Schema.isMaxLength(REPLY_MANY_MAX)),
  reply: PermissionReply,
  message: Schema.optional(Feedback),
})
export type PermissionReplyManyInput = typeof PermissionReplyManyInput.Type

/**
 * What became of one ask of a `permission.replyMany`: `replied` = this answer decided it;
 * `settled` = an earlier answer of the same call already did (a reject's cascade, an always's
 * auto-approval); `gone` = it was not pending when the call started; `failed` = the agent server
 * holding it could not be told (`reason`), and it is still pending.
 */
export const ReplyOutcome = Schema.Literals(["replied", "settled", "gone", "failed"])
export type ReplyOutcome = typeof ReplyOutcome.Type

export const PermissionReplyManyResult = Schema.Struct({
  results: Schema.Array(
    Schema.Struct({ requestID: PermissionRequestId, outcome: ReplyOutcome, reason: Schema.optionalKey(Schema.String) }),
  ),
})
export type PermissionReplyManyResult = typeof PermissionReplyManyResult.Type

export const PermissionRejectSessionInput = Schema.Struct({
  sessionID: SessionId,
  /** Given to the oldest ask as feedback; the others are rejected with it by the core's cascade. */
  message: Schema.optional(Feedback),
})
export type PermissionRejectSessionInput = typeof PermissionRejectSessionInput.Type

export const PermissionRejectSessionResult = Schema.Struct({
  /** The asks this call rejected, oldest first (none when the session had no pending ask). */
  rejected: Schema.Array(PermissionRequestId),
})
export type PermissionRejectSessionResult = typeof PermissionRejectSessionResult.Type

export const QuestionReplyInput = Schema.Struct({
  requestID: QuestionId,
  /** One answer per question, in order: the picked labels (empty: unanswered). */
  answers: Schema.Array(QuestionAnswer),
})
export type QuestionReplyInput = typeof QuestionReplyInput.Type

export const QuestionRejectInput = Schema.Struct({ requestID: QuestionId })
export type QuestionRejectInput = typeof QuestionRejectInput.Type

// --- Approvals editor, outputs viewer, sessions, decision log (UI part B) -----------------------

/** The saved approval does not exist (any more). */
export class ApprovalNotFoundError extends Schema.TaggedError<ApprovalNotFoundError>()("SavedApprovals.NotFoundError", {
  id: Schema.String,
}) {
  override get message() {
    return `Saved approval not found: ${this.id}`
  }
}

/** The project already has a saved approval for this action and resource pattern. */
export class ApprovalConflictError extends Schema.TaggedError<ApprovalConflictError>()("SavedApprovals.ConflictError", {
  projectID: Schema.String,
  action: Schema.String,
  resource: Schema.String,
}) {
  override get message() {
    return `The project already has a saved approval for ${this.action} ${this.resource}`
  }
}

/** The project does not exist. */
export class ProjectNotFoundError extends Schema.TaggedError<ProjectNotFoundError>()(
  "SavedApprovals.ProjectNotFoundError",
  { projectID: Schema.String },
) {
  override get message() {
    return `Project not found: ${this.projectID}`
  }
}

/** An action or resource pattern typed by a person was refused; `reason` says what to change. */
export class InvalidPatternError extends Schema.TaggedError<InvalidPatternError>()("Approvals.InvalidPatternError", {
  field: Schema.Literals(["action", "resource"]),
  reason: Schema.String,
}) {
  override get message() {
    return this.reason
  }
}

/** The managed output does not exist, or was deleted or expired. */
export class OutputNotFoundError extends Schema.TaggedError<OutputNotFoundError>()("ToolOutputStore.NotFoundError", {
  id: Schema.String,
}) {
  override get message() {
    return `Tool output not found: ${this.id}`
  }
}

/** The managed file exists but could not be read or removed. */
export class OutputAccessError extends Schema.TaggedError<OutputAccessError>()("ToolOutputStore.AccessError", {
  id: Schema.String,
  operation: Schema.Literals(["read", "delete"]),
}) {
  override get message() {
    return `Tool output ${this.id} could not be ${this.operation === "read" ? "read" : "deleted"}`
  }
}

/** An action typed by a person: a tool's action name, literally (no wildcards: they would widen it). */
export const ActionName = Schema.String.check(
  Schema.makeFilter((value: string) =>
    /^[A-Za-z0-9_.:/-]{1,200}$/.test(value)
      ? true
      : "Use an action name such as bash, edit or read: letters, digits, _ . : / - and no wildcards",
  ),
)

export const ApprovalsListInput = Schema.Struct({
  projectID: Schema.optional(ProjectId),
  /** Only these approvals (the editor asks for the ones it has not annotated yet). */
  ids: Schema.optional(Schema.Array(SavedApprovalId).check(Schema.isMaxLength(10_000))),
})
export type ApprovalsListInput = typeof ApprovalsListInput.Type

export const ApprovalsAddInput = Schema.Struct({
  projectID: ProjectId,
  /** Checked against {@link ActionName} by the handler (an `InvalidPatternError`, not a decoding error). */
  action: Schema.String,
  /** Checked against `ResourcePattern`. */
  resource: Schema.String,
})
export type ApprovalsAddInput = typeof ApprovalsAddInput.Type

export const ApprovalsUpdateInput = Schema.Struct({
  id: SavedApprovalId,
  /** The new resource pattern, checked against `ResourcePattern`. */
  resource: Schema.String,
})
export type ApprovalsUpdateInput = typeof ApprovalsUpdateInput.Type

export const ApprovalsRemoveInput = Schema.Struct({ id: SavedApprovalId })
export type ApprovalsRemoveInput = typeof ApprovalsRemoveInput.Type

export const ApprovalsExportInput = Schema.Struct({ projectID: Schema.optional(ProjectId) })
export type ApprovalsExportInput = typeof ApprovalsExportInput.Type

export const OutputsListInput = Schema.Struct({
  sessionID: Schema.optional(SessionId),
  limit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10_000 }))),
})
export type OutputsListInput = typeof OutputsListInput.Type

/** The most lines one `outputs.read` page holds. */
export const OUTPUT_PAGE_MAX_LINES = 2000

export const OutputsReadInput = Schema.Struct({
  id: ToolOutputId,
  /** 0-based index of the first line looked at (default 0). */
  offset: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  /** Most lines returned (default 200). */
  limit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: OUTPUT_PAGE_MAX_LINES }))),
  /** Only lines containing this text, case-insensitively. */
  search: Schema.optional(Schema.String.check(Schema.isMaxLength(1000))),
})
export type OutputsReadInput = typeof OutputsReadInput.Type

/** One page of a managed file, streamed from disk: a large file is never read whole. */
export const OutputPage = Schema.Struct({
  output: ToolOutputFile,
  lines: Schema.Array(OutputLine),
  /** The `offset` of the next page; `null` at the end of the file. */
  nextOffset: Schema.NullOr(Schema.Int),
})
export type OutputPage = typeof OutputPage.Type

export const OutputsDeleteInput = Schema.Struct({ id: ToolOutputId })
export type OutputsDeleteInput = typeof OutputsDeleteInput.Type

export const SessionsListInput = Schema.Struct({
  projectID: Schema.optional(ProjectId),
  status: Schema.optional(SessionStatus),
})
export type SessionsListInput = typeof SessionsListInput.Type

export const SessionsGetInput = Schema.Struct({ sessionID: SessionId })
export type SessionsGetInput = typeof SessionsGetInput.Type

/** The most tool calls and decisions `sessions.get` returns (the newest ones). */
export const SESSION_DETAIL_LIMIT = 1000

/** One session with its tool-call timeline, its todo list and the decisions taken in it. */
export const SessionDetail = Schema.Struct({
  session: Session,
  /** Oldest first; at most the newest {@link SESSION_DETAIL_LIMIT}. */
  toolCalls: Schema.Array(ToolCall),
  todos: Schema.Array(Todo),
  /** Newest first; at most the newest {@link SESSION_DETAIL_LIMIT}. */
  decisions: Schema.Array(PermissionDecision),
})
export type SessionDetail = typeof SessionDetail.Type

export const DecisionsFilter = Schema.Struct({
  sessionID: Schema.optional(SessionId),
  projectID: Schema.optional(ProjectId),
  status: Schema.optional(PermissionStatus),
})
export type DecisionsFilter = typeof DecisionsFilter.Type

export const DecisionsListInput = Schema.Struct({
  ...DecisionsFilter.fields,
  /** Rows to skip, newest first (default 0). */
  offset: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 }))),
  /** Most rows returned (default 100). */
  limit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 }))),
})
export type DecisionsListInput = typeof DecisionsListInput.Type

export const DecisionsPage = Schema.Struct({
  decisions: Schema.Array(PermissionDecision),
  /** The `offset` of the next page; `null` when there are no more rows. */
  nextOffset: Schema.NullOr(Schema.Int),
})
export type DecisionsPage = typeof DecisionsPage.Type

// --- Runner: sessions Gatehouse runs itself -------------------------------------------------------

/** A JSONL script of assistant turns (`resources/demo/README.md`); a relative path is the project's. */
export const ScriptedProviderChoice = Schema.Struct({
  type: Schema.Literal("scripted"),
  script: Schema.String,
})

/**
 * An OpenAI-compatible chat-completions endpoint: `name` picks a provider configured under
 * `providers` in config.jsonc; otherwise `base_url` and `model` describe one. The key is
 * `api_key_env`, read from Gatehouse's environment, or `api_key` itself (never stored).
 */
export const OpenAICompatibleProviderChoice = Schema.Struct({
  type: Schema.Literal("openai-compatible"),
  name: Schema.optional(Schema.String),
  base_url: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  api_key_env: Schema.optional(Schema.String),
  api_key: Schema.optional(Schema.String),
  stream: Schema.optional(Schema.Boolean),
})

/** The model that drives a runner session. */
export const ProviderChoice = Schema.Union([ScriptedProviderChoice, OpenAICompatibleProviderChoice])
export type ProviderChoice = typeof ProviderChoice.Type

export const SessionsStartInput = Schema.Struct({
  /** The project directory, absolute; its project is created on first use. */
  project: Schema.String,
  /** Default `build`. */
  agent: Schema.optional(Schema.String),
  /** Default: the prompt's first line. */
  title: Schema.optional(Schema.String),
  provider: ProviderChoice,
  /** The first user message. */
  prompt: Schema.optional(Schema.String),
})
export type SessionsStartInput = typeof SessionsStartInput.Type

/** A session could not start: the directory, the agent or the provider cannot be used. */
export class SessionStartError extends Schema.TaggedError<SessionStartError>()("Runner.StartError", {
  reason: Schema.String,
}) {
  override get message() {
    return `Cannot start the session: ${this.reason}`
  }
}

export const SessionsStopInput = Schema.Struct({ sessionID: SessionId })
export type SessionsStopInput = typeof SessionsStopInput.Type

// --- Connectors: agent servers Gatehouse supervises -----------------------------------------------

/** The longest connector name. */
export const CONNECTOR_NAME_MAX_LENGTH = 60

export const ConnectorsAddInput = Schema.Struct({
  /** `http(s)://host:port` of `opencode serve`. */
  url: Schema.String,
  /** Default: the URL's host and port. Letters, digits, `.`, `_`, `-`. */
  name: Schema.optional(Schema.String),
  /** Default `opencode` when a password is given. */
  username: Schema.optional(Schema.String),
  /** The server's `OPENCODE_SERVER_PASSWORD`, sent as HTTP basic auth. */
  password: Schema.optional(Schema.String),
})
export type ConnectorsAddInput = typeof ConnectorsAddInput.Type

export const ConnectorsRemoveInput = Schema.Struct({ name: Schema.String })
export type ConnectorsRemoveInput = typeof ConnectorsRemoveInput.Type

/** A connection cannot be added as given; `reason` says what to change. */
export class ConnectorInvalidError extends Schema.TaggedError<ConnectorInvalidError>()("Connectors.InvalidError", {
  field: Schema.Literals(["url", "name", "username", "password"]),
  reason: Schema.String,
}) {
  override get message() {
    return this.reason
  }
}

/** Another connection already has this name. */
export class ConnectorConflictError extends Schema.TaggedError<ConnectorConflictError>()("Connectors.ConflictError", {
  name: Schema.String,
}) {
  override get message() {
    return `A connection named ${this.name} already exists`
  }
}

/** No connection has this name. */
export class ConnectorNotFoundError extends Schema.TaggedError<ConnectorNotFoundError>()("Connectors.NotFoundError", {
  name: Schema.String,
}) {
  override get message() {
    return `Connection not found: ${this.name}`
  }
}

/** The connection comes from config.jsonc; it is changed or removed there. */
export class ConnectorReadOnlyError extends Schema.TaggedError<ConnectorReadOnlyError>()("Connectors.ReadOnlyError", {
  name: Schema.String,
}) {
  override get message() {
    return `${this.name} is configured in config.jsonc; change it there`
  }
}

export const MethodSpecs = {
  /** Version, data directory and the current event sequence. */
  "app.info": { payload: NoPayload, success: AppInfo, error: InvalidRequestError },
  /** A consistent snapshot of the state the UI shows, with the sequence it reflects. */
  "app.snapshot": { payload: NoPayload, success: Snapshot, error: InvalidRequestError },
  /** Answers one pending ask, whichever Location holds it (a reject cascades through its session). */
  "permission.reply": {
    payload: PermissionReplyInput,
    success: Schema.Null,
    error: Schema.Union([AskNotFoundError, AskForwardError]),
  },
  /** The same answer to each of a chosen set of asks, in order; asks already gone are skipped. */
  "permission.replyMany": {
    payload: PermissionReplyManyInput,
    success: PermissionReplyManyResult,
    error: Schema.Never,
  },
  /** Rejects every pending ask of one session (the core's cascade), with optional feedback. */
  "permission.rejectSession": {
    payload: PermissionRejectSessionInput,
    success: PermissionRejectSessionResult,
    error: Schema.Union([SessionNotFoundError, AskForwardError]),
  },
  /** Answers pending questions; the asking tool call receives the labels. */
  "question.reply": {
    payload: QuestionReplyInput,
    success: Schema.Null,
    error: Schema.Union([QuestionNotFoundError, QuestionInvalidReplyError]),
  },
  /** Dismisses pending questions: the asking session stops. */
  "question.reject": { payload: QuestionRejectInput, success: Schema.Null, error: QuestionNotFoundError },
  /** Saved approvals with their origin and the agents for which a configured deny shadows them. */
  "approvals.list": { payload: ApprovalsListInput, success: Schema.Array(ApprovalEntry), error: Schema.Never },
  /** Saves an approval by hand (no ask is auto-approved by it). */
  "approvals.add": {
    payload: ApprovalsAddInput,
    success: SavedApproval,
    error: Schema.Union([InvalidPatternError, ProjectNotFoundError, ApprovalConflictError]),
  },
  /** Changes an approval's resource pattern. */
  "approvals.update": {
    payload: ApprovalsUpdateInput,
    success: SavedApproval,
    error: Schema.Union([InvalidPatternError, ApprovalNotFoundError, ApprovalConflictError]),
  },
  /** Revokes an approval: the next matching call asks again. */
  "approvals.remove": { payload: ApprovalsRemoveInput, success: Schema.Null, error: ApprovalNotFoundError },
  /** Saved approvals as a JSON document (all projects, or one). */
  "approvals.export": { payload: ApprovalsExportInput, success: Schema.String, error: Schema.Never },
  /** Every agent with its configured rules (read-only; config.jsonc is where they change). */
  "agents.list": { payload: NoPayload, success: Schema.Array(AgentInfo), error: Schema.Never },
  /** Managed output files still on disk, newest first. */
  "outputs.list": { payload: OutputsListInput, success: Schema.Array(ToolOutputFile), error: Schema.Never },
  /** One page of a managed file's lines, optionally only those containing a text. */
  "outputs.read": {
    payload: OutputsReadInput,
    success: OutputPage,
    error: Schema.Union([OutputNotFoundError, OutputAccessError]),
  },
  /** Deletes a managed file now. */
  "outputs.delete": {
    payload: OutputsDeleteInput,
    success: Schema.Null,
    error: Schema.Union([OutputNotFoundError, OutputAccessError]),
  },
  /** Sessions, optionally of one project or in one status, oldest first. */
  "sessions.list": { payload: SessionsListInput, success: Schema.Array(Session), error: Schema.Never },
  /** One session with its tool-call timeline, todos and decisions. */
  "sessions.get": { payload: SessionsGetInput, success: SessionDetail, error: SessionNotFoundError },
  /** Starts a runner session (source `runner`) in a project and returns it `running`. */
  "sessions.start": { payload: SessionsStartInput, success: Session, error: SessionStartError },
  /** Stops a runner session: its pending asks are withdrawn and it ends `stopped`. */
  "sessions.stop": { payload: SessionsStopInput, success: Schema.Null, error: SessionNotFoundError },
  /** One page of the decision log, newest first, filtered by session, project or status. */
  "decisions.list": { payload: DecisionsListInput, success: DecisionsPage, error: Schema.Never },
  /** The (filtered) decision log as JSONL, one decision per line, newest first. */
  "decisions.export": { payload: DecisionsFilter, success: Schema.String, error: Schema.Never },
  /** Every supervised agent server with how its connection stands. */
  "connectors.list": { payload: NoPayload, success: Schema.Array(ConnectorInfo), error: Schema.Never },
  /** Adds an OpenCode server and starts connecting to it (kept across restarts). */
  "connectors.add": {
    payload: ConnectorsAddInput,
    success: ConnectorInfo,
    error: Schema.Union([ConnectorInvalidError, ConnectorConflictError]),
  },
  /** Disconnects and forgets a server added in Gatehouse; its sessions stay in the history. */
  "connectors.remove": {
    payload: ConnectorsRemoveInput,
    success: Schema.Null,
    error: Schema.Union([ConnectorNotFoundError, ConnectorReadOnlyError]),
  },
} satisfies { readonly [K in Method]: MethodSpec }

export interface MethodSpec {
  readonly payload: Schema.Top
  readonly success: Schema.Top
  readonly error: Schema.Top
}

export type Specs = typeof MethodSpecs
export type PayloadOf<M extends Method> = Specs[M]["payload"]["Type"]
export type SuccessOf<M extends Method> = Specs[M]["success"]["Type"]
export type ErrorOf<M extends Method> = Specs[M]["error"]["Type"]
