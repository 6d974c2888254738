import { Effect } from "effect"
import {
  ConnectorConflictError,
  ConnectorInvalidError,
  ConnectorNotFoundError,
  ConnectorReadOnlyError,
} from "@contract/methods"
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
      return yield* connectors
        .add({
          url: input.url,
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.username !== undefined ? { username: input.username } : {}),
          ...(input.password !== undefined ? { password: input.password } : {}),
        })
        .pipe(
          Effect.mapError((error) =>
            error._tag === "Connectors.InvalidError"
              ? new ConnectorInvalidError({ field: error.field, reason: error.reason })
              : new ConnectorConflictError({ name: error.name }),
          ),
        )
    }),
  "connectors.remove": (input) =>
    Effect.gen(function* () {
      const connectors = yield* Connectors.Service
      yield* connectors
        .remove(input.name)
        .pipe(
          Effect.mapError((error) =>
            error._tag === "Connectors.NotFoundError"
              ? new ConnectorNotFoundError({ name: error.name })
              : new ConnectorReadOnlyError({ name: error.name }),
          ),
        )
      return null
    }),
}
