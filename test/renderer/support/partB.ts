import { Schema } from "effect"
import type { ToolOutputFile } from "@contract/events"
import { PermissionRequestId, SavedApprovalId, ToolOutputId } from "@contract/ids"
import type { PermissionDecision, SavedApproval, ToolCall } from "@contract/model"
import { projectId, sessionId } from "./fixtures"

// Fixtures for the sessions, approvals and outputs views (ids are valid ascending ids).

const pad = (n: number, width: number) => n.toString(16).padStart(width, "0")

export const approvalId = (n: number) => Schema.decodeSync(SavedApprovalId)(`psv_${pad(n, 16)}abcdefABCDEF`)
export const requestId = (n: number) => Schema.decodeSync(PermissionRequestId)(`per_${pad(n, 16)}abcdefABCDEF`)
export const outputId = (n: number) => Schema.decodeSync(ToolOutputId)(`tool_${pad(n, 16)}abcdefABCDEF`)

export const approval = (n: number, overrides: Partial<SavedApproval> = {}): SavedApproval => ({
  id: approvalId(n),
  projectID: projectId(1),
  action: "bash",
  resource: `cmd${n} *`,
  createdAt: 3000 + n,
  requestID: null,
  hitCount: 0,
  lastUsedAt: null,
  ...overrides,
})

export const DAY = 24 * 60 * 60 * 1000

export const output = (n: number, overrides: Partial<ToolOutputFile> = {}): ToolOutputFile => ({
  id: outputId(n),
  path: `/data/tool-output/${outputId(n)}`,
  bytes: 60_000 + n,
  lines: 2500 + n,
  sessionId: sessionId(1),
  toolCallId: `call-${n}`,
  tool: "bash",
  createdAt: 4000 + n,
  expiresAt: 4000 + n + 7 * DAY,
  ...overrides,
})

export const toolCall = (callID: string, overrides: Partial<ToolCall> = {}): ToolCall => ({
  sessionID: sessionId(1),
  messageID: "msg-1",
  callID,
  tool: "bash",
  input: { command: `echo ${callID}` },
  status: "running",
  resultKind: null,
  preview: null,
  outputPaths: [],
  error: null,
  startedAt: 5000,
  finishedAt: null,
  ...overrides,
})

export const decision = (n: number, overrides: Partial<PermissionDecision> = {}): PermissionDecision => ({
  id: requestId(n),
  sessionID: sessionId(1),
  projectID: projectId(1),
  action: "bash",
  resources: [`cmd ${n}`],
  save: null,
  metadata: null,
  source: null,
  agent: "build",
  status: "pending",
  decidedBy: null,
  approvalIDs: null,
  feedback: null,
  createdAt: 6000 + n,
  decidedAt: null,
  ...overrides,
})
