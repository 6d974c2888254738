import { Cause, Exit, Schema } from "effect"
import type { Method } from "@contract/channels"
import type { PayloadOf, SuccessOf } from "@contract/methods"
import { exitSchemaOf, payloadSchemaOf } from "@contract/wire"

// The wire codec both bridges share: payloads go out in the schema's encoded form (what the main
// process's dispatcher decodes) and answers come back as an encoded Exit.

/** The call could not reach the main process (the connection is down); retry when it is back. */
export class DisconnectedError extends Error {
  readonly _tag = "Bridge.DisconnectedError"
  constructor(readonly method: string) {
    super(`Cannot call ${method}: not connected to Gatehouse`)
    this.name = "Bridge.DisconnectedError"
  }
}

/** The main process answered with something the contract cannot decode (mismatched builds). */
export class ProtocolError extends Error {
  readonly _tag = "Bridge.ProtocolError"
  constructor(
    readonly method: string,
    readonly reason: string,
  ) {
    super(`Unreadable answer to ${method}: ${reason}`)
    this.name = "Bridge.ProtocolError"
  }
}

/** The payload as the main process's dispatcher decodes it (the schema's encoded side). */
export function encodePayload<M extends Method>(method: M, payload: PayloadOf<M>): unknown {
  return Schema.encodeUnknownSync(payloadSchemaOf(method))(payload)
}

/** Decodes an encoded Exit: the success value, or throws the failure (a tagged error) or the defect. */
export function decodeExit<M extends Method>(method: M, encoded: unknown): SuccessOf<M> {
  const decoded = Schema.decodeUnknownExit(exitSchemaOf(method))(encoded)
  if (Exit.isFailure(decoded)) throw new ProtocolError(method, String(Cause.squash(decoded.cause)))
  const exit = decoded.value as Exit.Exit<SuccessOf<M>, unknown>
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}
