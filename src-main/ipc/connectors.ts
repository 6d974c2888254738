import { Effect } from "effect"
import { Connectors } from "@core/connector/Connectors"
import type { Handlers } from "./ContractServer"

// The connections panel's side of the contract: the supervised agent servers, adding one, removing
// one. Their state changes reach the UI as `connector.updated` events.

/** The services the connectors handlers use. */
export type ConnectorsServices = Connectors.Service

type ConnectorsMethod = "connectors.list" | "connectors.add" | "connectors.remove"

export const connectorsHandlers: Pick<Handlers<ConnectorsServices>, ConnectorsMethod> = {
  "connectors.list": () =>
    Effect.gen(function* () {
      const connectors = yield* Connectors.Service
      return yield* Effect.sync(() => connectors.listUnsafe())
    }),
  "connectors.add": (input) =>
    Effect.gen(function* () {
      const connectors = yield* Connectors.Service
      return yield* connectors.add(input)
    }),
  "connectors.remove": (input) =>
    Effect.gen(function* () {
      const connectors = yield* Connectors.Service
      yield* connectors.remove(input.name)
      return null
    }),
}
