import { Context, type Effect, type Scope } from "effect"
import type { Tool } from "./Tool"

export * as Tools from "./Tools"

/**
 * The registration capability of one Location, and nothing else: built-in tools and Location
 * plugins get this, never the registry (they cannot list, materialize or settle).
 */
export interface Interface {
  /**
   * Registers every tool of `record` under its key for this Location, owned by the caller's Scope.
   * The latest active registration of a name wins; closing the Scope removes exactly this one and
   * reveals the previous. The record is validated whole before anything changes.
   */
  readonly register: (
    record: Readonly<Record<string, Tool.AnyTool>>,
  ) => Effect.Effect<void, Tool.RegistrationError, Scope.Scope>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/tool/Tools") {}
