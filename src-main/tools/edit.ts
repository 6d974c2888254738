import { Effect, Schema } from "effect"
import { LocationMutation } from "@core/location/LocationMutation"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Tool } from "@core/tool/Tool"
import { FileDiff } from "./support/diff"
import { FileMutation } from "./support/FileMutation"
import { assertAction, assertExternal } from "./support/permission"
import { decodeStrict, hasUtf8Bom, joinBom, splitBom } from "./support/text"

export * as EditTool from "./edit"

export const name = "edit"

export const IDENTICAL = "No changes to apply: oldString and newString are identical."
export const EMPTY = "oldString must not be empty. Use write to create or overwrite a file."
export const NOT_FOUND =
  "Could not find oldString in the file. It must match exactly, including whitespace and indentation."
export const AMBIGUOUS =
  "Found multiple exact matches for oldString. Provide more surrounding context or set replaceAll to true."
export const STALE = "File changed after permission approval. Read it again before editing."

export const Input = Schema.Struct({
  path: Schema.String.annotate({
    description:
      "File path to edit. Relative paths resolve within the current location. Absolute paths inside it are accepted; external absolute paths require external_directory approval.",
  }),
  oldString: Schema.String.annotate({ description: "The exact text to replace" }),
  newString: Schema.String.annotate({ description: "The replacement text (must differ from oldString)" }),
  replaceAll: Schema.optional(
    Schema.Boolean.annotate({ description: "Replace every occurrence of oldString (default false)" }),
  ),
})
export type Input = typeof Input.Type

export const Output = Schema.Struct({
  files: Schema.Array(FileDiff.Info),
  replacements: Schema.Number,
})
export type Output = typeof Output.Type

const toLineEnding = (text: string, crlf: boolean) => {
  const lf = text.replaceAll("\r\n", "\n")
  return crlf ? lf.replaceAll("\n", "\r\n") : lf
}

/** Non-overlapping occurrences, scanning left to right. */
export function countOccurrences(text: string, search: string): number {
  let count = 0
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + search.length)) count++
  return count
}

/** Literal replacement: `$&`, `$1` or `$$` in `replacement` are inserted as typed. */
export function replaceLiteral(text: string, search: string, replacement: string, all: boolean): string {
  if (all) return text.split(search).join(replacement)
  const at = text.indexOf(search)
  return at === -1 ? text : text.slice(0, at) + replacement + text.slice(at + search.length)
}

const PREVIEW_LINES = 6
const PREVIEW_WIDTH = 240

const preview = (value: string, prefix: "-" | "+") => {
  const lines = value.replaceAll("\r\n", "\n").split("\n")
  const shown = lines
    .slice(0, PREVIEW_LINES)
    .map((line) => `${prefix}${line.length > PREVIEW_WIDTH ? `${line.slice(0, PREVIEW_WIDTH)}...` : line}`)
  if (lines.length > PREVIEW_LINES) shown.push(`${prefix}...`)
  return shown
}

export const toModelText = (output: Output, oldString: string, newString: string) =>
  [
    `Edited file successfully: ${output.files[0]?.file ?? ""}`,
    `Replacements: ${output.replacements}`,
    "```diff",
    ...preview(oldString, "-"),
    ...preview(newString, "+"),
    "```",
  ].join("\n")

/** A model-visible refusal decided before or after reading (never a filesystem or permission error). */
class Refusal extends Schema.TaggedError<Refusal>()("EditTool.Refusal", { message: Schema.String }) {}

/** The `edit` tool (SPEC-CORE E.3), decorated with the shared `edit` action for catalog filtering. */
export const make = Effect.gen(function* () {
  const permission = yield* PermissionV2.Service
  const mutation = yield* LocationMutation.Service
  const files = yield* FileMutation.Service
  const tool = Tool.make({
    description:
      "Replace exact text in one file: oldString must match exactly once (or set replaceAll). Line endings and a UTF-8 BOM are kept. Relative paths resolve within the current location. Absolute paths inside it are accepted; external absolute paths require external_directory approval before edit approval.",
    input: Input,
    output: Output,
    toModelOutput: ({ input, output }) => [
      { type: "text", text: toModelText(output, input.oldString, input.newString) },
    ],
    execute: (input, context) =>
      Effect.gen(function* () {
        if (input.oldString === input.newString) return yield* new Refusal({ message: IDENTICAL })
        if (input.oldString === "") return yield* new Refusal({ message: EMPTY })
        const target = yield* mutation.resolve({ path: input.path, kind: "file" })
        yield* assertExternal(permission, context, target)
        yield* assertAction(permission, context, { action: "edit", resources: [target.resource], save: ["*"] })
        // Nothing of the file is read before this point: a denial looks the same for any content.
        const bytes = yield* files.read(target)
        const bom = hasUtf8Bom(bytes)
        const text = decodeStrict(bom ? bytes.subarray(3) : bytes, { ignoreBOM: true })
        if (text === undefined)
          return yield* new Refusal({ message: `Unable to edit ${input.path}: file is not valid UTF-8` })
        const crlf = text.includes("\r\n")
        const oldString = toLineEnding(input.oldString, crlf)
        const newString = toLineEnding(input.newString, crlf)
        const replacements = countOccurrences(text, oldString)
        if (replacements === 0) return yield* new Refusal({ message: NOT_FOUND })
        if (replacements > 1 && input.replaceAll !== true) return yield* new Refusal({ message: AMBIGUOUS })
        const next = splitBom(replaceLiteral(text, oldString, newString, input.replaceAll === true))
        yield* files.writeIfUnchanged({ target, expected: bytes, content: joinBom(next.text, bom || next.bom) })
        return {
          files: [FileDiff.make(target.resource, text, next.text, "modified")],
          replacements,
        } satisfies Output
      }).pipe(
        Effect.mapError((error) => {
          switch (error._tag) {
            case "EditTool.Refusal":
              return new Tool.ToolFailure({ message: error.message })
            case "FileMutation.StaleContentError":
              return new Tool.ToolFailure({ message: STALE, error })
            // The person's feedback is for the model: it must read it, not a generic failure.
            case "PermissionV2.CorrectedError":
              return new Tool.ToolFailure({ message: error.message, error })
            default:
              return new Tool.ToolFailure({ message: `Unable to edit ${input.path}`, error })
          }
        }),
      ),
  })
  return Tool.withPermission(tool, "edit")
})
