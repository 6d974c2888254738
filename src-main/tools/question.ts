import { Effect, Schema } from "effect"
import { QuestionAnswer, QuestionInfo } from "@contract/model"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Questions } from "@core/session/Questions"
import { Tool } from "@core/tool/Tool"
import { assertAction } from "./support/permission"

export * as QuestionTool from "./question"

export const name = "question"
export const PERMISSION_DENIED = "Permission denied: question"

export const description = `Asks the person supervising this session one or more questions and waits for the answers. Use it to:
1. Gather preferences or requirements
2. Clarify ambiguous instructions
3. Get decisions on implementation choices as you work
4. Offer choices about which direction to take

Usage notes:
- Each question has a short "header" (at most 30 characters), the full "question" text and its "options" (each a concise "label" and a "description").
- Answers come back as arrays of the selected labels, one array per question; set "multiple": true to allow selecting more than one option.
- If you recommend an option, make it the first one and add "(Recommended)" at the end of its label.`

export const Input = Schema.Struct({
  questions: Schema.Array(QuestionInfo).check(Schema.isMinLength(1)).annotate({ description: "Questions to ask" }),
})
export type Input = typeof Input.Type

export const Output = Schema.Struct({ answers: Schema.Array(QuestionAnswer) })
export type Output = typeof Output.Type

/** The model text (SPEC-CORE E.12): every question with its answers, `Unanswered` when empty. */
export function toModelText(
  questions: ReadonlyArray<{ readonly question: string }>,
  answers: ReadonlyArray<ReadonlyArray<string>>,
): string {
  const formatted = questions
    .map((question, i) => {
      const answer = answers[i]
      return `"${question.question}"="${answer && answer.length > 0 ? answer.join(", ") : "Unanswered"}"`
    })
    .join(", ")
  return `User has answered your questions: ${formatted}. You can now continue with the user's answers in mind.`
}

/**
 * `question` (SPEC-CORE E.12): asserts `question` (any permission failure reads
 * `Permission denied: question`), then asks through {@link Questions} and waits. A dismissal is
 * not caught here: it arrives as a `QuestionV2.RejectedError` defect and stops the run.
 */
export const make = Effect.gen(function* () {
  const permission = yield* PermissionV2.Service
  const questions = yield* Questions.Service

  return Tool.make({
    description,
    input: Input,
    output: Output,
    toModelOutput: ({ input, output }) => [{ type: "text", text: toModelText(input.questions, output.answers) }],
    execute: (input, context) =>
      Effect.gen(function* () {
        yield* assertAction(permission, context, { action: name, resources: ["*"] }).pipe(
          Effect.mapError((error) => new Tool.ToolFailure({ message: PERMISSION_DENIED, error })),
        )
        // The assert just found the session in this Location, and sessions are never deleted.
        const answers = yield* questions
          .ask({
            sessionID: context.sessionID,
            questions: input.questions,
            tool: { messageID: context.assistantMessageID, callID: context.toolCallID },
          })
          .pipe(Effect.orDie)
        return { answers }
      }),
  })
})
