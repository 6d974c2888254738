import { createHash } from "node:crypto"
import { once } from "node:events"
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { Worker } from "node:worker_threads"
import { assert } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Schema } from "effect"
import fc from "fast-check"
import type { PermissionRequest } from "@contract/model"
import type { Config } from "@core/config/Config"
import type { Tool } from "@core/tool/Tool"
import { ToolRegistry } from "@core/tool/ToolRegistry"
import { FileMutation } from "@main/tools/support/FileMutation"
import { autoAnswer, locationTestLayer, makeSession } from "../../../support/location"
import { makeTempDir } from "../../../support/temp"

// Shared by the read/write/edit/apply_patch tests: a real Location in a temp directory with a
// sibling "outside" directory, calls settled through a real ToolRegistry as the runner settles
// them, and FileMutation wrapped to count what reached the disk.

export interface Sandbox {
  /** The temp directory holding both. */
  readonly root: string
  /** The Location's directory. */
  readonly directory: string
  /** A directory next to the Location (external). */
  readonly outside: string
}

export function sandbox(): Sandbox {
  const root = makeTempDir("gatehouse-tools-")
  const directory = join(root, "project")
  const outside = join(root, "outside")
  mkdirSync(directory)
  mkdirSync(outside)
  return { root, directory, outside }
}

export type Rule = Config.Rule
export const rule = (action: string, resource: string, effect: Rule["effect"]): Rule => ({ action, resource, effect })

/** Temp directories sit under the system tmp dir, which the built-in agents allow: ask for everything. */
export const ASK_ALL: ReadonlyArray<Rule> = [rule("*", "*", "ask")]

/** Counts of what reached FileMutation. */
export interface FileCounts {
  reads: number
  writes: number
}

/** The real FileMutation, counting reads and every kind of write. */
export const countingFiles = (counts: FileCounts) =>
  Layer.effect(
    FileMutation.Service,
    Effect.map(FileMutation.make, (real) => {
      const count = <A, E>(key: keyof FileCounts, effect: () => Effect.Effect<A, E>) =>
        Effect.suspend(() => {
          counts[key]++
          return effect()
        })
      return FileMutation.Service.of({
        read: (target) => count("reads", () => real.read(target)),
        writeTextPreservingBom: (input) => count("writes", () => real.writeTextPreservingBom(input)),
        writeIfUnchanged: (input) => count("writes", () => real.writeIfUnchanged(input)),
        create: (input) => count("writes", () => real.create(input)),
        removeIfUnchanged: (input) => count("writes", () => real.removeIfUnchanged(input)),
      })
    }),
  )

export interface ToolLayerOptions {
  readonly directory: string
  readonly rules?: ReadonlyArray<Rule>
  readonly config?: Config.GatehouseConfig
  readonly counts?: FileCounts
  readonly dataDir?: string
}

/** A real Location (real SQLite, real PermissionV2, FileMutation), counting file operations if asked. */
export const toolLayer = (options: ToolLayerOptions) => {
  const config: Config.GatehouseConfig = {
    ...options.config,
    ...(options.rules ? { agents: { build: [...options.rules] } } : {}),
  }
  const location = locationTestLayer({
    dataDir: options.dataDir ?? makeTempDir(),
    directory: options.directory,
    config,
  })
  // The counting FileMutation replaces the core test layer's own.
  return options.counts ? Layer.merge(location, countingFiles(options.counts)) : location
}

export interface Harness {
  /** Settles one call of the tool through a fresh materialization (like one provider turn). */
  readonly call: (input: unknown, id?: string) => Effect.Effect<ToolRegistry.Settlement, never>
  /** Every permission request asked so far, in order. */
  readonly asks: ReadonlyArray<PermissionRequest>
  readonly context: Tool.Context
}

type Answer = { readonly reply: "once" | "always" | "reject"; readonly message?: string }

/**
 * Registers `make`'s tool under `name` in the Location's registry for the test's scope and answers
 * asks with `answer` (default: once). Calls settle exactly as the runner does.
 */
export const harness = <R>(
  name: string,
  make: Effect.Effect<Tool.AnyTool, never, R>,
  answer: (request: PermissionRequest) => Answer = () => ({ reply: "once" }),
) =>
  Effect.gen(function* () {
    const session = yield* makeSession()
    const asks = yield* autoAnswer(answer)
    const registry = yield* ToolRegistry.Service
    yield* registry.register({ [name]: yield* make })
    const context: Tool.Context = {
      sessionID: session.id,
      agent: "build",
      assistantMessageID: "msg_1",
      toolCallID: "call_1",
    }
    const call = (input: unknown, id = "call_1") =>
      Effect.gen(function* () {
        const materialized = yield* registry.materialize()
        return yield* materialized.settle({
          sessionID: session.id,
          agent: "build",
          assistantMessageID: "msg_1",
          call: { id, name, input },
        })
      }).pipe(Effect.orDie)
    return { call, asks, context } satisfies Harness
  })

/** The error text of a settlement that must have failed. */
export function errorOf(settlement: ToolRegistry.Settlement): string {
  assert.strictEqual(settlement.result.type, "error", JSON.stringify(settlement.result))
  return settlement.result.value as string
}

/** The text of a settlement whose model output is one text part. */
export function textOf(settlement: ToolRegistry.Settlement): string {
  assert.strictEqual(settlement.result.type, "text", JSON.stringify(settlement.result))
  return settlement.result.value as string
}

/** The structured output of a successful settlement. */
export function structuredOf(settlement: ToolRegistry.Settlement): unknown {
  assert.notStrictEqual(settlement.result.type, "error", JSON.stringify(settlement.result))
  return settlement.output?.structured
}

/** The defect a settlement died with (e.g. PermissionV2.DeclinedError). */
export const defectOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(effect)
    assert.isTrue(Exit.isFailure(exit), "expected the settlement to die")
    if (Exit.isSuccess(exit)) return undefined
    assert.isTrue(Cause.hasDies(exit.cause), Cause.pretty(exit.cause))
    return Cause.squash(exit.cause)
  })

/** Names and content hashes of every file under `directory` (sentinel checks). */
export function snapshot(directory: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      const key = prefix + entry.name
      if (entry.isDirectory()) {
        out[`${key}/`] = "dir"
        walk(path, `${key}/`)
      } else if (entry.isFile()) {
        out[key] = createHash("sha256").update(readFileSync(path)).digest("hex") + `:${statSync(path).ino}`
      } else out[key] = entry.isSymbolicLink() ? "link" : "other"
    }
  }
  walk(directory, "")
  return out
}

/**
 * Random JSON: any JSON value, or objects with the tool's fields (all of them, or some) whose values
 * are mostly plausible (`fields`) and sometimes any JSON.
 */
export const jsonInputs = (fields: Readonly<Record<string, fc.Arbitrary<unknown>>>) => {
  const values = Object.fromEntries(
    Object.entries(fields).map(([field, plausible]) => [
      field,
      fc.oneof({ arbitrary: plausible, weight: 3 }, { arbitrary: fc.jsonValue(), weight: 1 }),
    ]),
  )
  return fc.oneof(fc.jsonValue(), fc.record(values), fc.record(values, { requiredKeys: [] }))
}

/** Whether `input` decodes with the tool's input schema, as settlement decodes it. */
export const decodes = (schema: Tool.Codec, input: unknown) =>
  Exit.isSuccess(Schema.decodeUnknownExit(Schema.toCodecJson(schema))(input))

/**
 * SPEC-CORE A.3 for a real tool: a random JSON input that does not decode settles as
 * `Invalid tool input: …` without a single permission ask or file operation; one that decodes never
 * gets that error; nothing ever dies. Every ask is rejected with feedback, so nothing is written.
 */
export const neverReachesExecutorUnlessDecoded = <E, R>(
  input: Tool.Codec,
  fields: Readonly<Record<string, fc.Arbitrary<unknown>>>,
  run: Effect.Effect<Harness, E, R>,
  counts: FileCounts,
) =>
  Effect.gen(function* () {
    const tool = yield* run
    const seen = { decoded: 0, refused: 0 }
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(jsonInputs(fields), async (value) => {
          const asksBefore = tool.asks.length
          const readsBefore = counts.reads
          const exit = await Effect.runPromiseExit(tool.call(value))
          if (!Exit.isSuccess(exit)) throw new Error(`settlement died: ${Cause.pretty(exit.cause)}`)
          const result = exit.value.result
          if (!decodes(input, value)) {
            seen.refused++
            if (result.type !== "error" || !String(result.value).startsWith("Invalid tool input: "))
              throw new Error(`undecodable input was not refused: ${JSON.stringify(result)}`)
            if (tool.asks.length !== asksBefore) throw new Error("undecodable input asked for permission")
            if (counts.reads !== readsBefore) throw new Error("undecodable input read a file")
          } else {
            seen.decoded++
            if (result.type === "error" && String(result.value).startsWith("Invalid tool input"))
              throw new Error(`decodable input was refused: ${JSON.stringify(value)}`)
          }
          if (counts.writes !== 0) throw new Error("a write happened although every ask was rejected")
        }),
      ),
    )
    // The generator must exercise both sides, or the property proves nothing.
    assert.isAbove(seen.decoded, 0)
    assert.isAbove(seen.refused, 0)
  })

/**
 * For the scope's lifetime, a worker thread keeps swapping `<parent>/<name>` between the real
 * directory and a symbolic link to `outside` (RELIABILITY check 13), leaving the real directory in
 * place when it stops. Calls made meanwhile may also die: LocationMutation.resolve lets a path that
 * vanishes mid-resolution escape as a defect; only what reached the disk is judged here.
 */
export const flipping = (parent: string, name: string, outside: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const stop = new Int32Array(new SharedArrayBuffer(4))
      const worker = new Worker(
        `
        const { workerData } = require("node:worker_threads")
        const fs = require("node:fs")
        const path = require("node:path")
        const { parent, name, outside, stop } = workerData
        const real = path.join(parent, name)
        const moved = path.join(parent, name + "-real")
        const attempt = (step) => { try { step() } catch {} }
        while (Atomics.load(stop, 0) === 0) {
          attempt(() => fs.renameSync(real, moved))
          attempt(() => fs.symlinkSync(outside, real))
          attempt(() => fs.unlinkSync(real))
          attempt(() => fs.renameSync(moved, real))
        }
        `,
        { eval: true, workerData: { parent, name, outside, stop } },
      )
      return { worker, stop }
    }),
    ({ worker, stop }) =>
      Effect.promise(async () => {
        Atomics.store(stop, 0, 1)
        await once(worker, "exit")
      }),
  )
