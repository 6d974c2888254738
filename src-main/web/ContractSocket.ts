import type { IncomingMessage } from "node:http"
import type { Duplex } from "node:stream"
import { Effect, Exit, FiberSet, Layer, Schema } from "effect"
import { WebSocket, WebSocketServer, type RawData } from "ws"
import { InvalidRequestError } from "@contract/methods"
import { EventBatchJson, WireRequest, type WireMessage } from "@contract/wire"
import { EventBus } from "@core/events/EventBus"
import { describeIssues } from "@core/schema/issues"
import { makeDispatcher } from "@main/ipc/ContractServer"
import { handlers, type HandlerServices } from "@main/ipc/handlers"
import { HttpServer } from "./HttpServer"
import { webSocketProtocol } from "./security"

export * as ContractSocket from "./ContractSocket"

// The contract over a WebSocket: the headless twin of Electron IPC. Requests are answered by the
// same generic dispatcher; push events come from one EventBus subscription per connection, taken
// when the socket opens, so a client that asks for `app.snapshot` afterwards sees no gap.

/** Where the UI connects. The supervisor token admits it; the agent token does not. */
export const path = "/ws"

/** Largest request frame accepted; requests are small JSON, so a bigger one is a client bug or abuse. */
export const maxFrameBytes = 1024 * 1024

/** A client that lets this much output pile up is dropped; it resyncs when it reconnects. */
export const maxBufferedBytes = 16 * 1024 * 1024

/** WebSocket close codes used when the server ends a connection. */
export const CloseCode = {
  unsupportedData: 1003,
  invalidPayload: 1007,
  internalError: 1011,
  tryAgainLater: 1013,
  goingAway: 1001,
} as const

const encodeInvalid = Schema.encodeUnknownSync(
  Schema.toCodecJson(Schema.Exit(Schema.Unknown, InvalidRequestError, Schema.Defect())),
)
const decodeRequest = Schema.decodeUnknownExit(WireRequest)
const encodeBatch = Schema.encodeUnknownSync(EventBatchJson)

export type Parsed =
  | { readonly _tag: "request"; readonly request: WireRequest }
  /** The frame is unusable but names an id: the client gets an InvalidRequestError answer. */
  | { readonly _tag: "invalid"; readonly id: number; readonly method: string; readonly reason: string }
  /** Not even an id to answer: the connection is closed with the reason. */
  | { readonly _tag: "fatal"; readonly reason: string }

/** Reads one text frame. A missing `payload` means a void payload (JSON cannot carry `undefined`). */
export function parseFrame(text: string): Parsed {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { _tag: "fatal", reason: "the frame is not JSON" }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { _tag: "fatal", reason: "the frame is not a JSON object" }
  }
  const record = value as Record<string, unknown>
  const decoded = decodeRequest("payload" in record ? record : { ...record, payload: undefined })
  if (decoded._tag === "Success") return { _tag: "request", request: decoded.value }
  if (typeof record.id !== "number" || !Number.isInteger(record.id)) {
    return { _tag: "fatal", reason: "the frame has no integer id" }
  }
  const error = decoded.cause.reasons.find((reason) => reason._tag === "Fail")
  const reason = error && "error" in error ? describeIssues(error.error as Schema.SchemaError) : "invalid frame"
  const method = typeof record.method === "string" ? record.method.slice(0, 100) : "(none)"
  return { _tag: "invalid", id: record.id, method, reason }
}

/** The answer to a frame that could not be decoded into a request. */
export const invalidAnswer = (id: number, method: string, reason: string): WireMessage => ({
  type: "result",
  id,
  exit: encodeInvalid(Exit.fail(new InvalidRequestError({ method, reason }))),
})

export const layer = Layer.effectDiscard(
  Effect.gen(function* () {
    const server = yield* HttpServer.Service
    const bus = yield* EventBus.Service
    // Every per-connection fiber and every in-flight request lives in this set: closing the layer
    // (runtime disposal) interrupts them before the services they use are released.
    const runFork = yield* FiberSet.makeRuntime<HandlerServices>()
    const runPromise = yield* FiberSet.makeRuntimePromise<HandlerServices>()
    const dispatch = makeDispatcher(handlers, runPromise)

    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: maxFrameBytes,
      perMessageDeflate: false,
      // The token travels as a second subprotocol; only `gatehouse` is ever echoed back.
      handleProtocols: (protocols) => (protocols.has(webSocketProtocol) ? webSocketProtocol : false),
    })
    yield* Effect.addFinalizer(() =>
      Effect.callback<void>((resume) => {
        for (const client of wss.clients) client.close(CloseCode.goingAway, "Gatehouse is shutting down")
        for (const client of wss.clients) client.terminate()
        wss.close(() => resume(Effect.void))
      }),
    )

    const send = (socket: WebSocket, message: WireMessage) => {
      if (socket.readyState !== WebSocket.OPEN) return
      if (socket.bufferedAmount > maxBufferedBytes) {
        socket.close(CloseCode.tryAgainLater, "Too far behind; reconnect to resync")
        return
      }
      socket.send(JSON.stringify(message))
    }

    /** Forwards every batch after the subscription point until the socket closes. */
    const forward = (socket: WebSocket, subscribed: () => void) =>
      Effect.gen(function* () {
        const subscription = yield* bus.subscribe(() => undefined)
        subscribed()
        while (true) {
          const events = yield* subscription.takeBatch
          send(socket, { type: "events", batch: encodeBatch({ events }) })
        }
      }).pipe(
        Effect.scoped,
        Effect.onExit((exit) =>
          Effect.sync(() => {
            if (Exit.isFailure(exit) && !Exit.hasInterrupts(exit)) {
              socket.close(CloseCode.internalError, "Internal error")
            }
          }),
        ),
      )

    const onConnection = (socket: WebSocket) => {
      // Requests wait until the subscription exists, so a snapshot is never older than the feed.
      let ready: () => void = () => {}
      const subscribed = new Promise<void>((resolve) => (ready = resolve))
      const fiber = runFork(forward(socket, ready))
      socket.on("close", () => fiber.interruptUnsafe())
      socket.on("error", () => socket.terminate())
      socket.on("message", (data: RawData, isBinary: boolean) => {
        if (isBinary) return socket.close(CloseCode.unsupportedData, "Binary frames are not supported")
        const parsed = parseFrame(rawText(data))
        if (parsed._tag === "fatal") return socket.close(CloseCode.invalidPayload, `Bad frame: ${parsed.reason}`)
        if (parsed._tag === "invalid") return send(socket, invalidAnswer(parsed.id, parsed.method, parsed.reason))
        const { id, method, payload } = parsed.request
        void subscribed
          .then(() => dispatch(method, payload))
          .then(
            (exit) => send(socket, { type: "result", id, exit }),
            // Only interruption (shutdown) rejects: the dispatcher turns every failure into data.
            () => undefined,
          )
      })
    }

    yield* server.mount({
      prefix: path,
      auth: "supervisor",
      upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) =>
        wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws)),
    })
  }),
)

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8")
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8")
  return data.toString("utf8")
}
