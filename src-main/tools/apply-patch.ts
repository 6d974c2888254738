import { Effect, Schema } from "effect"
import { LocationMutation } from "@core/location/LocationMutation"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Tool } from "@core/tool/Tool"
import { FileDiff } from "./support/diff"
import { FileMutation } from "./support/FileMutation"
import { Patch } from "./support/patch"
import { assertAction, assertExternal } from "./support/permission"
import { decodeStrict, hasUtf8Bom, joinBom, splitBom } from "./support/text"

export * as ApplyPatchTool from "./apply-patch"

export const name = "apply_patch"

export const REQUIRED = "patchText is required"
export const EMPTY = "patch rejected: empty patch"
export const MOVES = "apply_patch moves are not supported yet"

export const Input = Schema.Struct({
  patchText: Schema.String.annotate({
    description:
      "The whole patch: `*** Begin Patch`, then `*** Add File: <path>` (lines prefixed with +), `*** Update File: <path>` (@@ chunks of ' ', '-' and '+' lines) or `*** Delete File: <path>` sections, then `*** End Patch`",
  }),
})
export type Input = typeof Input.Type

export const Applied = Schema.Struct({
  type: Schema.Literals(["add", "update", "delete"]),
  resource: Schema.String,
  /** The canonical path changed. */
  target: Schema.String,
})
export type Applied = typeof Applied.Type

export const Output = Schema.Struct({
  applied: Schema.Array(Applied),
  files: Schema.Array(FileDiff.Info),
})
export type Output = typeof Output.Type

const LETTER = { add: "A", update: "M", delete: "D" } as const

export const toModelText = (output: Output) =>
  ["Applied patch sequentially:", ...output.applied.map((item) => `${LETTER[item.type]} ${item.resource}`)].join("\n")

interface Resolved {
  readonly hunk: Patch.Hunk
  readonly target: LocationMutation.Target
}

/** One hunk ready to commit: what it writes, and the bytes the file must still have. */
type Prepared = Resolved & {
  readonly before: string
  readonly after: string
  readonly content: Uint8Array
  /** The bytes read after approval (for update and delete): the commit is conditional on them. */
  readonly expected?: Uint8Array
}

/** The `apply_patch` tool (SPEC-CORE E.4), decorated with the shared `edit` action for catalog filtering. */
export const make = Effect.gen(function* () {
  const permission = yield* PermissionV2.Service
  const mutation = yield* LocationMutation.Service
  const files = yield* FileMutation.Service

  const tool = Tool.make({
    description:
      "Apply one patch of add, update and delete file operations. Every target is resolved and approved before any file is read. Operations apply in order; if one fails, the earlier ones stay applied and the failure lists them. Moves and rollback are not supported.",
    input: Input,
    output: Output,
    toModelOutput: ({ output }) => [{ type: "text", text: toModelText(output) }],
    execute: (input, context) => {
      const applied: Applied[] = []
      const failure = (message: string) => new Tool.ToolFailure({ message })
      /** A failure at one hunk; `reason` only before anything was applied. */
      const failAt = (path: string, reason?: string, error?: unknown) =>
        new Tool.ToolFailure({
          message:
            applied.length === 0
              ? `Unable to apply patch at ${path}${reason ? `: ${reason}` : ""}`
              : `Patch partially applied before failing at ${path}. Applied: ${applied.map((item) => item.resource).join(", ")}`,
          ...(error === undefined ? {} : { error }),
        })

      return Effect.gen(function* () {
        if (input.patchText.trim() === "") return yield* failure(REQUIRED)
        const parsed = yield* Effect.try({
          try: () => Patch.parse(input.patchText),
          catch: (error) => error,
        }).pipe(
          Effect.catch((error) =>
            error instanceof Patch.PatchError
              ? Effect.fail(failure(`apply_patch verification failed: ${error.message}`))
              : Effect.die(error),
          ),
        )
        if (parsed.length === 0) return yield* failure(EMPTY)
        if (parsed.some((hunk) => hunk.type === "update" && hunk.movePath !== undefined)) return yield* failure(MOVES)

        const resolved: Resolved[] = []
        for (const hunk of parsed) {
          const target = yield* mutation
            .resolve({ path: hunk.path, kind: "file" })
            .pipe(Effect.mapError((error) => failAt(hunk.path, undefined, error)))
          resolved.push({ hunk, target })
        }
        // One external_directory ask per distinct directory, then one edit ask for every file.
        const externals = new Map<string, LocationMutation.Target>()
        for (const { target } of resolved)
          if (target.externalDirectory && !externals.has(target.externalDirectory.resource))
            externals.set(target.externalDirectory.resource, target)
        for (const target of externals.values()) yield* assertExternal(permission, context, target)
        yield* assertAction(permission, context, {
          action: "edit",
          resources: [...new Set(resolved.map(({ target }) => target.resource))],
          save: ["*"],
        })

        // Nothing was read before the approval above. Hunks on the same file see each other's result.
        const view = new Map<string, Uint8Array | null>()
        const prepared: Prepared[] = []
        for (const { hunk, target } of resolved) {
          if (hunk.type === "add") {
            const after = hunk.contents === "" || hunk.contents.endsWith("\n") ? hunk.contents : `${hunk.contents}\n`
            const content = Buffer.from(after, "utf8")
            view.set(target.canonical, content)
            prepared.push({ hunk, target, before: "", after, content })
            continue
          }
          const known = view.get(target.canonical)
          if (known === null) return yield* failAt(hunk.path)
          const bytes =
            known ?? (yield* files.read(target).pipe(Effect.mapError((error) => failAt(hunk.path, undefined, error))))
          const bom = hasUtf8Bom(bytes)
          const before = decodeStrict(bom ? bytes.subarray(3) : bytes, { ignoreBOM: true })
          if (before === undefined) return yield* failAt(hunk.path, "file is not valid UTF-8")
          if (hunk.type === "delete") {
            view.set(target.canonical, null)
            prepared.push({ hunk, target, before, after: "", content: new Uint8Array(), expected: bytes })
            continue
          }
          const derived = yield* Effect.try({
            try: () => splitBom(Patch.derive(hunk.path, hunk.chunks, before)),
            catch: (error) => error,
          }).pipe(
            Effect.catch((error) =>
              error instanceof Patch.PatchError ? Effect.fail(failAt(hunk.path, error.message)) : Effect.die(error),
            ),
          )
          const content = Buffer.from(joinBom(derived.text, bom || derived.bom), "utf8")
          view.set(target.canonical, content)
          prepared.push({ hunk, target, before, after: derived.text, content, expected: bytes })
        }

        const diffs = prepared.map(({ hunk, target, before, after }) =>
          FileDiff.make(
            target.resource,
            before,
            after,
            hunk.type === "add" ? "added" : hunk.type === "delete" ? "deleted" : "modified",
          ),
        )
        for (const change of prepared) {
          const { hunk, target, content, expected } = change
          const commit: Effect.Effect<
            unknown,
            FileMutation.StaleContentError | FileMutation.TargetExistsError | FileMutation.FileSystemError
          > =
            hunk.type === "add"
              ? files.create({ target, content })
              : hunk.type === "delete"
                ? files.removeIfUnchanged({ target, expected: expected! })
                : files.writeIfUnchanged({ target, expected: expected!, content })
          yield* commit.pipe(Effect.mapError((error) => failAt(hunk.path, undefined, error)))
          applied.push({ type: hunk.type, resource: target.resource, target: target.canonical })
        }
        return { applied, files: diffs } satisfies Output
      }).pipe(
        Effect.mapError((error) => {
          switch (error._tag) {
            case "LLM.ToolFailure":
              return error
            // The person's feedback is for the model: it must read it, not a generic failure.
            case "PermissionV2.CorrectedError":
              return new Tool.ToolFailure({ message: error.message, error })
            default:
              return failAt("patch", undefined, error)
          }
        }),
      )
    },
  })
  return Tool.withPermission(tool, "edit")
})
