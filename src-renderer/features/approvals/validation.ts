import { Schema } from "effect"
import { ActionName } from "@contract/methods"
import { ResourcePattern } from "@contract/model"

// The same schemas the server decides with, run as the person types, so a refused pattern is
// explained before anything is sent. The server checks again; its answer wins.

const decodeAction = Schema.decodeUnknownExit(ActionName)
const decodeResource = Schema.decodeUnknownExit(ResourcePattern)

function problemOf(exit: ReturnType<typeof decodeAction>): string | undefined {
  if (exit._tag === "Success") return undefined
  const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  return failure && "error" in failure ? (failure.error as Error).message : "Invalid value"
}

/** Why a resource pattern would be refused, or `undefined` when it is fine. */
export const resourceProblem = (value: string) => problemOf(decodeResource(value))

/** Why an action name would be refused, or `undefined` when it is fine. */
export const actionProblem = (value: string) => problemOf(decodeAction(value))

/**
 * A note (not a refusal) for a pattern made only of wildcards, slashes and spaces (`*`, `**`,
 * `? *`): it allows every call of the action in the project, so the agent is never asked again.
 */
export function broadPatternNote(value: string): string | undefined {
  return /^[*?/\\ ]+$/.test(value) && value.includes("*")
    ? "This pattern matches everything: every call of this action in the project will be allowed without asking."
    : undefined
}
