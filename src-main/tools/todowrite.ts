import { Effect, Schema } from "effect"
import { Todo } from "@contract/model"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Todos } from "@core/session/Todos"
import { Tool } from "@core/tool/Tool"
import { assertAction } from "./support/permission"

export * as TodoWriteTool from "./todowrite"

export const name = "todowrite"

export const description = `Creates and maintains the structured task list of the current session. Use it to plan multi-step work, track progress and show the person what you are doing.

- Send the whole list every time: it replaces the previous one, in the order given.
- Each item has "content", a "status" (pending, in_progress, completed, cancelled) and a "priority" (high, medium, low).
- Keep one item in_progress at a time and mark items completed as soon as they are done.
- Skip it for a single trivial step.`

export const Input = Schema.Struct({
  todos: Schema.Array(Todo).annotate({ description: "The updated todo list" }),
})
export type Input = typeof Input.Type

export const Output = Schema.Struct({ todos: Schema.Array(Todo) })
export type Output = typeof Output.Type

/** The model text: the list as pretty JSON. */
export const toModelText = (output: Output): string => JSON.stringify(output.todos, null, 2)

/**
 * `todowrite` (SPEC-CORE E.11): asserts `todowrite`, then replaces the session's list in one
 * transaction and publishes `session.todos.updated`. Failures read `Unable to update todos`
 * (a rejection with feedback reads the feedback).
 */
export const make = Effect.gen(function* () {
  const permission = yield* PermissionV2.Service
  const todos = yield* Todos.Service

  return Tool.make({
    description,
    input: Input,
    output: Output,
    toModelOutput: ({ output }) => [{ type: "text", text: toModelText(output) }],
    execute: (input, context) =>
      Effect.gen(function* () {
        yield* assertAction(permission, context, { action: name, resources: ["*"], save: ["*"] })
        yield* todos.update({ sessionID: context.sessionID, todos: input.todos })
        return { todos: input.todos }
      }).pipe(
        Effect.mapError((error) =>
          // The person's feedback is for the model: it must read it, not a generic failure.
          error._tag === "PermissionV2.CorrectedError"
            ? new Tool.ToolFailure({ message: error.message, error })
            : new Tool.ToolFailure({ message: "Unable to update todos", error }),
        ),
      ),
  })
})
