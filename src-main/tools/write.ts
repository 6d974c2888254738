import { Effect, Schema } from "effect"
import { LocationMutation } from "@core/location/LocationMutation"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Tool } from "@core/tool/Tool"
import { FileMutation } from "./support/FileMutation"
import { assertAction, assertExternal } from "./support/permission"

export * as WriteTool from "./write"

export const name = "write"

export const Input = Schema.Struct({
  path: Schema.String.annotate({
    description:
      "File path to write. Relative paths resolve within the current location. Absolute paths inside it are accepted; external absolute paths require external_directory approval.",
  }),
  content: Schema.String.annotate({ description: "The complete new content of the file" }),
})
export type Input = typeof Input.Type

export const Output = Schema.Struct({
  operation: Schema.Literal("write"),
  /** The canonical path written. */
  target: Schema.String,
  resource: Schema.String,
  existed: Schema.Boolean,
})
export type Output = typeof Output.Type

export const toModelText = (output: Output) =>
  `${output.existed ? "Wrote" : "Created"} file successfully: ${output.resource}`

/** The `write` tool (SPEC-CORE E.2), decorated with the shared `edit` action for catalog filtering. */
export const make = Effect.gen(function* () {
  const permission = yield* PermissionV2.Service
  const mutation = yield* LocationMutation.Service
  const files = yield* FileMutation.Service
  const tool = Tool.make({
    description:
      "Write the complete content of one file, creating it and its parent directories if needed (a UTF-8 BOM the file had is kept). Relative paths resolve within the current location. Absolute paths inside it are accepted; external absolute paths require external_directory approval before edit approval.",
    input: Input,
    output: Output,
    toModelOutput: ({ output }) => [{ type: "text", text: toModelText(output) }],
    execute: (input, context) =>
      Effect.gen(function* () {
        const target = yield* mutation.resolve({ path: input.path, kind: "file" })
        yield* assertExternal(permission, context, target)
        yield* assertAction(permission, context, { action: "edit", resources: [target.resource], save: ["*"] })
        return yield* files.writeTextPreservingBom({ target, content: input.content })
      }).pipe(
        Effect.mapError((error) =>
          // The person's feedback is for the model; every other failure reads the same.
          error._tag === "PermissionV2.CorrectedError"
            ? new Tool.ToolFailure({ message: error.message, error })
            : new Tool.ToolFailure({ message: `Unable to write ${input.path}`, error }),
        ),
      ),
  })
  return Tool.withPermission(tool, "edit")
})
