import { Effect, Exit, Schema } from "effect"
import { Methods, type Method } from "@contract/channels"
import { InvalidRequestError, type ErrorOf, type PayloadOf, type SuccessOf } from "@contract/methods"
import { exitSchemaOf, payloadSchemaOf } from "@contract/wire"
import { describeIssues } from "@core/schema/issues"

/** One handler per method; a missing handler is a compile error (SG-10). */
export type Handlers<R> = {
  readonly [M in Method]: (payload: PayloadOf<M>) => Effect.Effect<SuccessOf<M>, ErrorOf<M>, R>
}

/** Runs an effect that needs the app's services (a ManagedRuntime's `runPromise`). */
export type Run<R> = <A>(effect: Effect.Effect<A, never, R>) => Promise<A>

const isMethod = (value: unknown): value is Method =>
  typeof value === "string" && (Methods as ReadonlyArray<string>).includes(value)

/**
 * The one generic server behind both transports. JSON has no `undefined`, so a missing payload
 * arrives as `null`, which is what methods without input expect. It decodes the payload with the method's schema,
 * runs the handler, and returns the encoded Exit: failures and defects become data, never throws.
 */
export function makeDispatcher<R>(handlers: Handlers<R>, run: Run<R>) {
  return async (method: unknown, payload: unknown): Promise<unknown> => {
    if (!isMethod(method)) {
      const error = new InvalidRequestError({ method: String(method).slice(0, 100), reason: "unknown method" })
      return encodeUnknownMethod(Exit.fail(error))
    }
    const handler = handlers[method] as (payload: unknown) => Effect.Effect<unknown, unknown, R>
    const program = Schema.decodeUnknownEffect(payloadSchemaOf(method))(payload === undefined ? null : payload).pipe(
      Effect.mapError((error) => new InvalidRequestError({ method, reason: describeIssues(error) })),
      Effect.flatMap(handler),
      Effect.exit,
      Effect.withSpan(`contract ${method}`),
    )
    return encodeExit(method, await run(program))
  }
}

const encodeUnknownMethod = Schema.encodeUnknownSync(
  Schema.toCodecJson(Schema.Exit(Schema.Unknown, InvalidRequestError, Schema.Defect())),
)

function encodeExit(method: Method, exit: Exit.Exit<unknown, unknown>): unknown {
  const schema = exitSchemaOf(method)
  try {
    return Schema.encodeUnknownSync(schema)(exit)
  } catch (error) {
    // The handler returned something its own schema cannot encode: report it as a defect, as data.
    return Schema.encodeUnknownSync(schema)(Exit.die(new Error(`Cannot encode the ${method} result: ${String(error)}`)))
  }
}
