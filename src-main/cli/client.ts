import { Cause, Exit, Schema } from "effect"
import { WebSocket } from "ws"
import type { Method } from "@contract/channels"
import type { Envelope } from "@contract/events"
import type { PayloadOf, SuccessOf } from "@contract/methods"
import { EventBatchJson, exitSchemaOf, payloadSchemaOf } from "@contract/wire"
import { bearerProtocolPrefix, webSocketProtocol } from "@main/web/security"
import { socketPath, type Host } from "./host"

// The contract over the headless host's WebSocket, for commands: the same wire as the UI's bridge
// (an encoded payload in, an encoded Exit out, pushed event batches), admitted by the supervisor
// token as the `bearer.<token>` subprotocol.

export interface Client {
  /** Calls a method; rejects with the method's decoded error (its `message` reads well). */
  readonly call: <M extends Method>(method: M, payload: PayloadOf<M>) => Promise<SuccessOf<M>>
  /** Every event pushed from now on; returns the unsubscribe function. */
  readonly onEvent: (listener: (envelope: Envelope) => void) => () => void
  /** Settles when the connection closes, for whatever reason. */
  readonly closed: Promise<void>
  readonly close: () => void
}

/** The host could not be reached or dropped the connection. */
export class ConnectionError extends Error {
  override readonly name = "ConnectionError"
}

const decodeBatch = Schema.decodeUnknownSync(EventBatchJson)

interface Pending {
  readonly method: Method
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
}

/** Opens the socket; resolves once the host accepted it (and subscribed it to events). */
export function connect(host: Host): Promise<Client> {
  const url = `${host.url.replace(/^http/, "ws")}${socketPath}`
  const socket = new WebSocket(url, [webSocketProtocol, `${bearerProtocolPrefix}${host.supervisorToken}`])
  const pending = new Map<number, Pending>()
  const listeners = new Set<(envelope: Envelope) => void>()
  let nextId = 1
  let closedReason = "the connection closed"

  const closed = new Promise<void>((resolve) => {
    socket.on("close", (code, reason) => {
      if (reason.length > 0) closedReason = `the connection closed (${code} ${reason.toString("utf8")})`
      for (const waiter of pending.values())
        waiter.reject(new ConnectionError(`Gatehouse at ${host.url}: ${closedReason}`))
      pending.clear()
      resolve()
    })
  })

  // A socket error is followed by `close`, which fails whatever still waits.
  socket.on("error", () => undefined)
  socket.on("message", (data) => {
    const message = JSON.parse(data.toString()) as { type: string; id?: number; exit?: unknown; batch?: unknown }
    if (message.type === "events") {
      for (const envelope of decodeBatch(message.batch).events) for (const listener of listeners) listener(envelope)
      return
    }
    const waiter = message.id === undefined ? undefined : pending.get(message.id)
    if (!waiter) return
    pending.delete(message.id!)
    const exit = Schema.decodeUnknownSync(exitSchemaOf(waiter.method))(message.exit) as Exit.Exit<unknown, unknown>
    if (Exit.isSuccess(exit)) return waiter.resolve(exit.value)
    waiter.reject(Cause.squash(exit.cause))
  })

  const client: Client = {
    call: (method, payload) =>
      new Promise((resolve, reject) => {
        const id = nextId++
        pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject })
        const encoded = Schema.encodeUnknownSync(payloadSchemaOf(method))(payload)
        socket.send(JSON.stringify({ id, method, payload: encoded === undefined ? null : encoded }))
      }),
    onEvent: (listener) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    closed,
    close: () => socket.close(1000, "done"),
  }

  return new Promise((resolve, reject) => {
    socket.once("open", () => resolve(client))
    socket.once("unexpected-response", (_request, response) => {
      reject(new ConnectionError(`Gatehouse at ${host.url} refused the connection: HTTP ${response.statusCode}`))
      socket.terminate()
    })
    socket.once("error", (error) =>
      reject(new ConnectionError(`Cannot reach Gatehouse at ${host.url}: ${error.message}`)),
    )
  })
}
