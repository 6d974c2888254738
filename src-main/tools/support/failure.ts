import { Tool } from "@core/tool/Tool"

/** A typed failure a tool may turn into model-visible text (never a defect: declines stay defects). */
export interface TypedFailure {
  readonly _tag: string
  readonly message: string
}

/**
 * The model-visible failure of bash, glob and grep: a `ToolFailure` stays as it is; a path the
 * Location refuses, a configured deny (`Permission denied: <action>`) and the person's feedback
 * keep their own message, so the model learns why; anything else becomes `fallback`
 * (`Unable to …`, the reference's wording).
 */
export function explainedFailure(error: TypedFailure, fallback: string): Tool.ToolFailure {
  switch (error._tag) {
    case "LLM.ToolFailure":
      return error as Tool.ToolFailure
    case "LocationMutation.PathError":
    case "PermissionV2.BlockedError":
    case "PermissionV2.CorrectedError":
      return new Tool.ToolFailure({ message: error.message, error })
    default:
      return new Tool.ToolFailure({ message: fallback, error })
  }
}
