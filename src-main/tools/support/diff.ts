import { createTwoFilesPatch, diffLines } from "diff"
import { Schema } from "effect"

export * as FileDiff from "./diff"

/** What a mutation did to one file, as edit and apply_patch report it (SPEC-CORE E.3, E.4). */
export const Info = Schema.Struct({
  /** The file's resource (Location-relative inside, canonical outside). */
  file: Schema.String,
  /** A unified two-file patch from `before` to `after`. */
  patch: Schema.String,
  status: Schema.Literals(["added", "modified", "deleted"]),
  additions: Schema.Number,
  deletions: Schema.Number,
})
export type Info = typeof Info.Type

/** The diff of one file's text, both sides without a BOM. */
export function make(file: string, before: string, after: string, status: Info["status"]): Info {
  let additions = 0
  let deletions = 0
  for (const change of diffLines(before, after)) {
    if (change.added) additions += change.count ?? 0
    if (change.removed) deletions += change.count ?? 0
  }
  return { file, patch: createTwoFilesPatch(file, file, before, after), status, additions, deletions }
}
