import { Schema } from "effect"
import { ProjectId, SessionId } from "./ids"

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
  createdAt: Millis,
  updatedAt: Millis,
})
export type Session = typeof Session.Type
