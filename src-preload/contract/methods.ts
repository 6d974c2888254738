import { Schema } from "effect"
import type { Method } from "./channels"
import { Project, Session } from "./model"

// Every method of the contract with its payload, success and error schemas (SG-9).
// Errors travel as data: the transport encodes `Schema.Exit(success, error, Defect)`.

/** The request could not be decoded, or named something that is not there. */
export class InvalidRequestError extends Schema.TaggedError<InvalidRequestError>()("Contract.InvalidRequestError", {
  method: Schema.String,
  reason: Schema.String,
}) {
  override get message() {
    return `Invalid ${this.method} request: ${this.reason}`
  }
}

export const AppInfo = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  dataDir: Schema.String,
  /** The event sequence number at the time of the answer. */
  seq: Schema.Int,
  /** `electron` or `headless`. */
  host: Schema.Literals(["electron", "headless"]),
})
export type AppInfo = typeof AppInfo.Type

/** Everything the UI shows, as of event `seq`; later features add their collections. */
export const Snapshot = Schema.Struct({
  seq: Schema.Int,
  projects: Schema.Array(Project),
  sessions: Schema.Array(Session),
})
export type Snapshot = typeof Snapshot.Type

/** The payload of a method that takes no input (`null` on the wire). */
export const NoPayload = Schema.Undefined

export const MethodSpecs = {
  /** Version, data directory and the current event sequence. */
  "app.info": { payload: NoPayload, success: AppInfo, error: InvalidRequestError },
  /** A consistent snapshot of the state the UI shows, with the sequence it reflects. */
  "app.snapshot": { payload: NoPayload, success: Snapshot, error: InvalidRequestError },
} satisfies { readonly [K in Method]: MethodSpec }

export interface MethodSpec {
  readonly payload: Schema.Top
  readonly success: Schema.Top
  readonly error: Schema.Top
}

export type Specs = typeof MethodSpecs
export type PayloadOf<M extends Method> = Specs[M]["payload"]["Type"]
export type SuccessOf<M extends Method> = Specs[M]["success"]["Type"]
export type ErrorOf<M extends Method> = Specs[M]["error"]["Type"]
