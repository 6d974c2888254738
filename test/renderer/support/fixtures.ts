import { Schema } from "effect"
import type { Envelope } from "@contract/events"
import { ProjectId, SessionId } from "@contract/ids"
import type { AppInfo, Snapshot } from "@contract/methods"
import type { Project, Session } from "@contract/model"

const pad = (n: number, width: number) => n.toString(16).padStart(width, "0")

export const projectId = (n: number) => Schema.decodeSync(ProjectId)(`prj_${pad(n, 16)}abcdefABCDEF`)
export const sessionId = (n: number) => Schema.decodeSync(SessionId)(`ses_${pad(n, 16)}abcdefABCDEF`)

export const project = (n: number, overrides: Partial<Project> = {}): Project => ({
  id: projectId(n),
  directory: `/work/p${n}`,
  name: `p${n}`,
  createdAt: 1000 + n,
  ...overrides,
})

export const session = (n: number, overrides: Partial<Session> = {}): Session => ({
  id: sessionId(n),
  projectId: projectId(1),
  agent: "build",
  title: `session ${n}`,
  source: "runner",
  status: "idle",
  createdAt: 2000 + n,
  updatedAt: 2000 + n,
  ...overrides,
})

export const snapshot = (seq: number, sessions: ReadonlyArray<Session> = [], projects = [project(1)]): Snapshot => ({
  seq,
  projects,
  sessions,
  asks: [],
  questions: [],
  approvals: [],
  outputs: [],
  connectors: [],
})

export const info = (seq = 0): AppInfo => ({
  name: "Gatehouse",
  version: "0.0.0-test",
  dataDir: "/data",
  seq,
  host: "headless",
})

export const created = (seq: number, value: Session): Envelope => ({
  seq,
  at: 0,
  event: { _tag: "session.created", session: value },
})

export const updated = (seq: number, value: Session): Envelope => ({
  seq,
  at: 0,
  event: { _tag: "session.updated", session: value },
})
