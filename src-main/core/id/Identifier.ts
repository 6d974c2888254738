import { randomInt } from "node:crypto"
import type {
  IdPrefix,
  PermissionRequestId,
  ProjectId,
  QuestionId,
  SavedApprovalId,
  SessionId,
  ToolCallId,
  ToolOutputId,
} from "@contract/ids"

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

let lastMs = 0
let counter = 0

/**
 * The 28-character ascending body of an id (SPEC-CORE C.4): 16 hex digits of
 * `ms × 4096 + counter` and 12 random base-62 characters. Within one process the
 * bodies strictly increase, also when many are made in the same millisecond or the
 * wall clock steps back (the last timestamp is reused until the clock catches up).
 */
export function ascendingBody(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now
    counter = 0
  } else {
    counter += 1
    if (counter >= 4096) {
      lastMs += 1
      counter = 0
    }
  }
  const stamp = (BigInt(lastMs) * 4096n + BigInt(counter)).toString(16).padStart(16, "0")
  let random = ""
  for (let i = 0; i < 12; i++) random += BASE62[randomInt(62)]
  return stamp + random
}

/** A new ascending id with the given prefix, e.g. `ses_0194c3a1b2c3d4e5Ab3dE5fG7hJ9`. */
export function ascending<P extends IdPrefix>(prefix: P): `${P}_${string}` {
  return `${prefix}_${ascendingBody()}`
}

/** The millisecond timestamp encoded in an id made by {@link ascending}. */
export function timestampOf(id: string): number {
  const body = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 17)
  return Number(BigInt(`0x${body}`) / 4096n)
}

/** Typed constructors for the branded ids of `@contract/ids`. */
export const newId = {
  project: () => ascending("prj") as ProjectId,
  session: () => ascending("ses") as SessionId,
  permissionRequest: () => ascending("per") as PermissionRequestId,
  savedApproval: () => ascending("psv") as SavedApprovalId,
  question: () => ascending("que") as QuestionId,
  toolOutput: () => ascending("tool") as ToolOutputId,
  toolCall: () => ascending("call") as ToolCallId,
}
