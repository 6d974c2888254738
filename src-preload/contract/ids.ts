import { Schema } from "effect"

// Every identifier is `<prefix>_<28 chars>`: 16 lowercase hex digits of (ms × 4096 + per-ms counter)
// followed by 12 base-62 characters (SPEC-CORE C.4). Ids of one prefix sort in creation order.
const idOf = (prefix: string) =>
  Schema.String.check(
    Schema.isPattern(new RegExp(`^${prefix}_[0-9a-f]{16}[0-9A-Za-z]{12}$`), { expected: `a ${prefix}_… id` }),
  )

export const ProjectId = idOf("prj").pipe(Schema.brand("ProjectId"))
export type ProjectId = typeof ProjectId.Type
export const SessionId = idOf("ses").pipe(Schema.brand("SessionId"))
export type SessionId = typeof SessionId.Type
export const PermissionRequestId = idOf("per").pipe(Schema.brand("PermissionRequestId"))
export type PermissionRequestId = typeof PermissionRequestId.Type
export const SavedApprovalId = idOf("psv").pipe(Schema.brand("SavedApprovalId"))
export type SavedApprovalId = typeof SavedApprovalId.Type
export const QuestionId = idOf("que").pipe(Schema.brand("QuestionId"))
export type QuestionId = typeof QuestionId.Type
export const ToolOutputId = idOf("tool").pipe(Schema.brand("ToolOutputId"))
export type ToolOutputId = typeof ToolOutputId.Type
export const ToolCallId = idOf("call").pipe(Schema.brand("ToolCallId"))
export type ToolCallId = typeof ToolCallId.Type

export const IdPrefixes = ["prj", "ses", "per", "psv", "que", "tool", "call"] as const
export type IdPrefix = (typeof IdPrefixes)[number]
