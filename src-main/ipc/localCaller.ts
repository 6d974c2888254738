import { Cause, Exit, Schema } from "effect"
import type { Method } from "@contract/channels"
import type { PayloadOf, SuccessOf } from "@contract/methods"
import { exitSchemaOf, payloadSchemaOf } from "@contract/wire"
import { makeDispatcher, type Handlers, type Run } from "./ContractServer"

/** Calls a contract method in-process, through the same dispatcher and codecs as both transports. */
export type Caller = <M extends Method>(method: M, payload: PayloadOf<M>) => Promise<SuccessOf<M>>

/**
 * A caller for code inside the main process (the Electron menu's demo): the payload is encoded and
 * decoded exactly as if it had crossed IPC, and a failure is thrown as its tagged error.
 */
export function localCaller<R>(handlers: Handlers<R>, run: Run<R>): Caller {
  const dispatch = makeDispatcher(handlers, run)
  return async (method, payload) => {
    const encoded = Schema.encodeUnknownSync(payloadSchemaOf(method))(payload)
    const exit = Schema.decodeUnknownSync(exitSchemaOf(method))(await dispatch(method, encoded)) as Exit.Exit<
      SuccessOf<typeof method>,
      unknown
    >
    if (Exit.isSuccess(exit)) return exit.value
    throw Cause.squash(exit.cause)
  }
}
