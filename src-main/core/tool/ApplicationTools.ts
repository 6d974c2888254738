import { Context, Effect, Layer, type Scope } from "effect"
import { Tool } from "./Tool"

export * as ApplicationTools from "./ApplicationTools"

/**
 * One registration of one name. `identity` is created once, at register time, so it stays the same
 * object however often the entries are rebuilt; the registry's stale-call check compares it.
 */
export interface Entry {
  readonly identity: object
  readonly tool: Tool.AnyTool
}

/** Process-level tools, shared by every Location (SPEC-CORE B.1, B.5). */
export interface Interface {
  /**
   * Registers every tool of `record` under its key, owned by the caller's Scope: closing it removes
   * exactly this registration and reveals whatever it shadowed. The record is validated whole
   * before anything changes; an empty record is a no-op.
   */
  readonly register: (
    record: Readonly<Record<string, Tool.AnyTool>>,
  ) => Effect.Effect<void, Tool.RegistrationError, Scope.Scope>
  /** The current name → entry map: the latest active registration of each name, in first-set order. */
  readonly entries: () => ReadonlyMap<string, Entry>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/tool/ApplicationTools") {}

interface Transform {
  readonly entries: ReadonlyArray<readonly [string, Entry]>
}

export const make = Effect.sync(() => {
  // A replayable state: the ordered list of active transforms. Reading replays them over an empty
  // map, so removing one transform anywhere in the list is exact and reveals what it shadowed.
  const transforms: Array<Transform> = []
  let cached: ReadonlyMap<string, Entry> | undefined

  const entries = (): ReadonlyMap<string, Entry> => {
    if (cached) return cached
    const map = new Map<string, Entry>()
    for (const transform of transforms) for (const [name, entry] of transform.entries) map.set(name, entry)
    cached = map
    return map
  }

  const register = Effect.fn("ApplicationTools.register")(function* (record: Readonly<Record<string, Tool.AnyTool>>) {
    const validated = yield* Tool.entriesOf(record)
    if (validated.length === 0) return
    const transform: Transform = {
      entries: validated.map(([name, tool]) => [name, { identity: {}, tool }] as const),
    }
    // Push and finalizer together, uninterruptibly: an interrupted caller still ends with a
    // registration that its Scope will remove, and a closed Scope removes it at once.
    yield* Effect.uninterruptible(
      Effect.gen(function* () {
        transforms.push(transform)
        cached = undefined
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            const index = transforms.indexOf(transform)
            if (index >= 0) transforms.splice(index, 1)
            cached = undefined
          }),
        )
      }),
    )
  })

  return Service.of({ register, entries })
})

export const layer = Layer.effect(Service, make)
