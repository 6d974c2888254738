import { Effect, Queue, type Exit, type Scope } from "effect"
import type { SessionId } from "@contract/ids"
import type { AppEvent } from "@contract/events"
import { EventBus } from "@core/events/EventBus"
import type { Tool } from "@core/tool/Tool"
import { ToolRegistry } from "@core/tool/ToolRegistry"
import { Tools } from "@core/tool/Tools"

// Settles built-in tools the way the runner will: register the carrier through the Location's
// narrow `Tools`, materialize the registry, and settle calls through that materialization.

export interface Settler {
  /** Settles one call of the registered tool with this input, as `agent` (default `build`). */
  readonly settle: (
    input: unknown,
    options?: { readonly agent?: string; readonly callID?: string },
  ) => Effect.Effect<ToolRegistry.Settlement, unknown>
  /** The same, as an Exit, so a test can look at defects. */
  readonly settleExit: (
    input: unknown,
    options?: { readonly agent?: string; readonly callID?: string },
  ) => Effect.Effect<Exit.Exit<ToolRegistry.Settlement, unknown>>
  readonly definition: Tool.Definition
}

let calls = 0

export const registered = (
  name: string,
  tool: Tool.AnyTool,
  sessionID: SessionId,
): Effect.Effect<Settler, Tool.RegistrationError, Tools.Service | ToolRegistry.Service | Scope.Scope> =>
  Effect.gen(function* () {
    const tools = yield* Tools.Service
    const registry = yield* ToolRegistry.Service
    yield* tools.register({ [name]: tool })
    const materialized = yield* registry.materialize()
    const definition = materialized.definitions.find((candidate) => candidate.name === name)!
    const settle: Settler["settle"] = (input, options = {}) =>
      materialized.settle({
        sessionID,
        agent: options.agent ?? "build",
        assistantMessageID: "msg_test",
        call: { id: options.callID ?? `call_${++calls}`, name, input },
      })
    return { settle, settleExit: (input, options) => Effect.exit(settle(input, options)), definition }
  })

/** The text of an error result, or a failed assertion. */
export function errorText(settlement: ToolRegistry.Settlement): string {
  if (settlement.result.type !== "error") throw new Error(`expected an error result, got ${JSON.stringify(settlement)}`)
  return settlement.result.value
}

/** The text of a text result, or a failed assertion. */
export function resultText(settlement: ToolRegistry.Settlement): string {
  if (settlement.result.type !== "text") throw new Error(`expected a text result, got ${JSON.stringify(settlement)}`)
  return settlement.result.value
}

/** Every event with one of the given tags from now on, in order. */
export const watchEvents = (...tags: ReadonlyArray<AppEvent["_tag"]>) =>
  Effect.gen(function* () {
    const bus = yield* EventBus.Service
    const subscription = yield* bus.subscribe(() => null)
    const events = yield* Queue.unbounded<AppEvent>()
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          for (const envelope of yield* subscription.takeBatch)
            if (tags.includes(envelope.event._tag)) Queue.offerUnsafe(events, envelope.event)
        }),
      ),
    )
    return events
  })
