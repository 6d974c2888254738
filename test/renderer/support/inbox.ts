import { Schema } from "effect"
import type { AppEvent } from "@contract/events"
import { PermissionRequestId, QuestionId } from "@contract/ids"
import type { PendingAsk, PendingQuestion, PermissionRequest, QuestionRequest, ToolCall } from "@contract/model"
import { sessionId } from "./fixtures"

// Inbox fixtures: ids carry their time exactly as the core's ascending ids do (ms × 4096 + n).

export const T0 = 1_750_000_000_000

const body = (ms: number, n: number) => (BigInt(ms) * 4096n + BigInt(n)).toString(16).padStart(16, "0")

export const askId = (ms: number, n = 0) => Schema.decodeSync(PermissionRequestId)(`per_${body(ms, n)}abcdefABCDEF`)
export const questionId = (ms: number, n = 0) => Schema.decodeSync(QuestionId)(`que_${body(ms, n)}abcdefABCDEF`)

export const request = (
  ms: number,
  session: number,
  overrides: Partial<PermissionRequest> = {},
): PermissionRequest => ({
  id: askId(ms),
  sessionID: sessionId(session),
  action: "bash",
  resources: [`echo ${ms}`],
  save: [`echo ${ms}`],
  metadata: { workdir: "." },
  ...overrides,
})

export const questionRequest = (ms: number, session: number): QuestionRequest => ({
  id: questionId(ms),
  sessionID: sessionId(session),
  questions: [
    {
      question: "Which database?",
      header: "Database",
      options: [
        { label: "SQLite", description: "one file" },
        { label: "Postgres", description: "a server" },
      ],
    },
  ],
})

export const asked = (value: PermissionRequest): AppEvent => ({ _tag: "permission.v2.asked", request: value })
export const replied = (value: PermissionRequest, reply: "once" | "always" | "reject" = "once"): AppEvent => ({
  _tag: "permission.v2.replied",
  sessionID: value.sessionID,
  requestID: value.id,
  reply,
})
export const withdrawn = (value: PermissionRequest): AppEvent => ({
  _tag: "permission.v2.withdrawn",
  sessionID: value.sessionID,
  requestID: value.id,
})
export const questionAsked = (value: QuestionRequest): AppEvent => ({ _tag: "question.v2.asked", request: value })
export const questionReplied = (value: QuestionRequest): AppEvent => ({
  _tag: "question.v2.replied",
  sessionID: value.sessionID,
  requestID: value.id,
  answers: [],
})

export const pendingAsk = (value: PermissionRequest, overrides: Partial<PendingAsk> = {}): PendingAsk => ({
  request: value,
  askedAt: Number(BigInt(`0x${value.id.slice(4, 20)}`) / 4096n),
  agent: "build",
  projectID: "prj_0000000000000001abcdefABCDEF" as PendingAsk["projectID"],
  call: null,
  ...overrides,
})

export const pendingQuestion = (value: QuestionRequest): PendingQuestion => ({
  request: value,
  askedAt: Number(BigInt(`0x${value.id.slice(4, 20)}`) / 4096n),
  agent: "build",
  projectID: "prj_0000000000000001abcdefABCDEF" as PendingQuestion["projectID"],
})

export const toolCall = (
  session: number,
  messageID: string,
  callID: string,
  tool: string,
  input: unknown,
  status: ToolCall["status"] = "running",
): ToolCall => ({
  sessionID: sessionId(session),
  messageID,
  callID,
  tool,
  input,
  status,
  resultKind: null,
  preview: null,
  outputPaths: [],
  error: null,
  startedAt: T0,
  finishedAt: status === "running" ? null : T0 + 1,
})
