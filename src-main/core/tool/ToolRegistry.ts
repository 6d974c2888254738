import { Context, Effect, Layer } from "effect"
import type { SessionId } from "@contract/ids"
import { ToolOutputStore } from "../output/ToolOutputStore"
import { Wildcard } from "../permission/Wildcard"
import { ApplicationTools } from "./ApplicationTools"
import { Tool } from "./Tool"
import { Tools } from "./Tools"

export * as ToolRegistry from "./ToolRegistry"

/** One call to settle, with the identity of the turn it belongs to (the runner supplies it). */
export interface ExecuteInput {
  readonly sessionID: SessionId
  readonly agent: string
  readonly assistantMessageID: string
  readonly call: Tool.Call
}

/** How a call ended: an error result alone, or the result with the bounded output it came from. */
export interface Settlement {
  readonly result: Tool.ResultValue
  readonly output?: Tool.ToolOutput
  /** Managed files holding what the preview left out; present only when non-empty. */
  readonly outputPaths?: ReadonlyArray<string>
}

/** One provider turn's catalog. `settle` answers only for what these definitions advertised. */
export interface Materialization {
  readonly definitions: ReadonlyArray<Tool.Definition>
  readonly settle: (input: ExecuteInput) => Effect.Effect<Settlement, ToolOutputStore.StorageError>
}

/** The shape of a permission rule; only `action`, `resource` and `effect` matter to the catalog. */
export interface CatalogRule {
  readonly action: string
  readonly resource: string
  readonly effect: "allow" | "deny" | "ask"
}

/**
 * A Location's tool catalog over the process-level ApplicationTools. It neither executes on its
 * own nor authorizes: settlement is reachable only through a materialization, and filtering by
 * rules is catalog visibility; each tool still asks PermissionV2 itself.
 */
export interface Interface {
  /** Same contract as {@link Tools.Interface.register}; Location registrations shadow process ones. */
  readonly register: Tools.Interface["register"]
  /**
   * The catalog for one provider turn. A tool is left out only when the last rule whose action
   * matches its permission action has resource `*` and effect `deny`. Each advertised name
   * remembers the registration it showed, so a call is refused as stale if that registration was
   * removed, replaced, overridden or revealed since.
   */
  readonly materialize: (rules?: ReadonlyArray<CatalogRule>) => Effect.Effect<Materialization>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/tool/ToolRegistry") {}

type Registration = ApplicationTools.Entry

const errorResult = (value: string): Settlement => ({ result: { type: "error", value } })

/** Catalog visibility (SPEC-CORE B.6): the last rule matching the action decides, resource ignored. */
export function whollyDisabled(action: string, rules: ReadonlyArray<CatalogRule>): boolean {
  const rule = rules.findLast((candidate) => Wildcard.match(action, candidate.action))
  return rule !== undefined && rule.resource === "*" && rule.effect === "deny"
}

/** A fresh registry for one Location; every Location builds its own. */
export const make = Effect.gen(function* () {
  const applications = yield* ApplicationTools.Service
  const outputs = yield* ToolOutputStore.Service
  const local = new Map<string, Array<{ readonly token: object; readonly registration: Registration }>>()

  const current = (name: string): Registration | undefined =>
    local.get(name)?.at(-1)?.registration ?? applications.entries().get(name)

  const settleAdvertised = Effect.fn("ToolRegistry.settle")(function* (input: ExecuteInput, advertised: object) {
    const name = input.call.name
    const registration = current(name)
    if (registration === undefined || registration.identity !== advertised)
      return errorResult(`Stale tool call: ${name}`)
    // Captured only after the identity check: later registration changes cannot redirect this call.
    const tool = registration.tool
    const context: Tool.Context = {
      sessionID: input.sessionID,
      agent: input.agent,
      assistantMessageID: input.assistantMessageID,
      toolCallID: input.call.id,
    }
    const settled = yield* Tool.settle(tool, input.call, context).pipe(
      Effect.map((output) => ({ _tag: "output" as const, output })),
      // Only the model-visible failure becomes a result; interruption and defects propagate.
      Effect.catchTag("LLM.ToolFailure", (failure) => Effect.succeed({ _tag: "failure" as const, failure })),
    )
    if (settled._tag === "failure") return errorResult(settled.failure.message)
    const bounded = yield* outputs.bound(settled.output, {
      sessionID: input.sessionID,
      toolCallID: input.call.id,
      tool: name,
    })
    const result = Tool.toResultValue(bounded.output)
    return bounded.outputPaths.length > 0
      ? { result, output: bounded.output, outputPaths: bounded.outputPaths }
      : { result, output: bounded.output }
  })

  const register = Effect.fn("ToolRegistry.register")(function* (record: Readonly<Record<string, Tool.AnyTool>>) {
    const entries = yield* Tool.entriesOf(record)
    if (entries.length === 0) return
    // Push and finalizer together, uninterruptibly: an interrupted caller still ends with a
    // registration that its Scope will remove, and a closed Scope removes it at once.
    yield* Effect.uninterruptible(
      Effect.gen(function* () {
        const token = {}
        for (const [name, tool] of entries) {
          const stack = local.get(name) ?? []
          stack.push({ token, registration: { identity: {}, tool } })
          local.set(name, stack)
        }
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            for (const [name] of entries) {
              const remaining = local.get(name)?.filter((entry) => entry.token !== token) ?? []
              if (remaining.length > 0) local.set(name, remaining)
              else local.delete(name)
            }
          }),
        )
      }),
    )
  })

  const materialize = Effect.fn("ToolRegistry.materialize")(function* (rules: ReadonlyArray<CatalogRule> = []) {
    // Process entries first, in their order; a Location override keeps the position, new names append.
    const registrations = new Map<string, Registration>(applications.entries())
    for (const [name, stack] of local) {
      const top = stack.at(-1)
      if (top) registrations.set(name, top.registration)
    }
    for (const [name, registration] of registrations)
      if (whollyDisabled(Tool.permission(registration.tool, name), rules)) registrations.delete(name)
    const advertised = new Map(Array.from(registrations, ([name, registration]) => [name, registration.identity]))
    return {
      definitions: Array.from(registrations, ([name, registration]) => Tool.definition(name, registration.tool)),
      settle: (input: ExecuteInput) => {
        const identity = advertised.get(input.call.name)
        return identity === undefined
          ? Effect.succeed(errorResult(`Unknown tool: ${input.call.name}`))
          : settleAdvertised(input, identity)
      },
    } satisfies Materialization
  })

  return Service.of({ register, materialize })
})

/**
 * One Location's `ToolRegistry` and its narrow `Tools`, sharing one store. Fresh on every build,
 * so each Location that builds it gets its own registrations over the one process-wide
 * ApplicationTools.
 */
export const layer = Layer.fresh(
  Layer.effect(
    Tools.Service,
    Effect.gen(function* () {
      const registry = yield* Service
      return Tools.Service.of({ register: registry.register })
    }),
  ).pipe(Layer.provideMerge(Layer.effect(Service, make))),
)
