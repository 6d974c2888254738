import { Schema } from "effect"
import type { Method } from "./channels"
import { EventBatch } from "./events"
import { InvalidRequestError, MethodSpecs } from "./methods"

// The wire shape of one call, shared by both transports and both ends: the answer is always an
// encoded Exit, so typed errors arrive as data and `err._tag` works in the renderer (SG-3, SG-10).

const cache = new Map<Method, Schema.Top>()

/** `Exit<success, error | InvalidRequestError, defect>` for a method, as a JSON codec. */
export function exitSchemaOf(method: Method) {
  let schema = cache.get(method)
  if (!schema) {
    const spec = MethodSpecs[method]
    schema = Schema.toCodecJson(
      Schema.Exit(spec.success, Schema.Union([spec.error, InvalidRequestError]), Schema.Defect()),
    )
    cache.set(method, schema)
  }
  return schema as Schema.Codec<unknown, unknown>
}

const payloads = new Map<Method, Schema.Top>()

/** A method's payload as a JSON codec; methods without input take `null` on the wire. */
export function payloadSchemaOf(method: Method) {
  let schema = payloads.get(method)
  if (!schema) {
    schema = Schema.toCodecJson(MethodSpecs[method].payload)
    payloads.set(method, schema)
  }
  return schema as Schema.Codec<unknown, unknown>
}

/** The JSON codec of a batch of push events. */
export const EventBatchJson = Schema.toCodecJson(EventBatch)

/** A request over the WebSocket transport. */
export const WireRequest = Schema.Struct({ id: Schema.Int, method: Schema.String, payload: Schema.Unknown })
export type WireRequest = typeof WireRequest.Type

/** A server-to-client WebSocket message: the answer to a request, or a batch of push events. */
export type WireMessage =
  | { readonly type: "result"; readonly id: number; readonly exit: unknown }
  | { readonly type: "events"; readonly batch: unknown }
