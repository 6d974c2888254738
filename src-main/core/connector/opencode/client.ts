import { Effect, Schema, type Scope } from "effect"
import { SseDecoder, type SseEvent } from "../../session/provider/sse"

// The HTTP side of one OpenCode server: JSON requests and the event stream, with basic auth,
// bounded waits, and failures as data (unauthorized, unreachable, an HTTP status, an answer that
// is not OpenCode's).

/** The server refused the credentials (HTTP 401). */
export class UnauthorizedError extends Schema.TaggedError<UnauthorizedError>()("OpencodeClient.UnauthorizedError", {}) {
  override get message() {
    return "The server refused the user name or password (HTTP 401)"
  }
}

/** Nothing answered: refused, reset, timed out, or the name did not resolve. */
export class UnreachableError extends Schema.TaggedError<UnreachableError>()("OpencodeClient.UnreachableError", {
  reason: Schema.String,
}) {
  override get message() {
    return this.reason
  }
}

/** The server answered with an error status. */
export class HttpError extends Schema.TaggedError<HttpError>()("OpencodeClient.HttpError", {
  status: Schema.Number,
  body: Schema.String,
}) {
  override get message() {
    return `The server answered HTTP ${this.status}${this.body ? `: ${this.body.slice(0, 200)}` : ""}`
  }
}

/** The server answered something that is not what OpenCode sends. */
export class InvalidResponseError extends Schema.TaggedError<InvalidResponseError>()(
  "OpencodeClient.InvalidResponseError",
  { path: Schema.String, reason: Schema.String },
) {
  override get message() {
    return `Unexpected answer to ${this.path} (is this an OpenCode server?): ${this.reason}`
  }
}

/** Events larger than this are skipped (permission and session events are a few KiB). */
const MAX_EVENT_CHARS = 4 * 1024 * 1024

export type ClientError = UnauthorizedError | UnreachableError | HttpError | InvalidResponseError

export interface Options {
  /** `http(s)://host:port[/path]`, normalized (no trailing slash). */
  readonly url: string
  /** The `Authorization` header, when the server wants basic auth. */
  readonly authorization?: string
  /** Longest wait for one JSON answer (default 15 s). */
  readonly requestTimeoutMs?: number
}

/** An open event stream: `next` waits for the next events, `null` when the server ended it. */
export interface EventStream {
  readonly next: Effect.Effect<ReadonlyArray<SseEvent> | null, UnreachableError>
}

export interface Client {
  readonly get: <S extends Schema.Top>(
    path: string,
    schema: S,
    directory?: string,
  ) => Effect.Effect<S["Type"], ClientError, S["DecodingServices"]>
  /** POSTs JSON; succeeds with the decoded JSON answer (OpenCode's replies answer `true`). */
  readonly post: (path: string, body: unknown, directory?: string) => Effect.Effect<unknown, ClientError>
  /** Opens `GET /global/event` (every directory the server works in); closed with the scope. */
  readonly events: Effect.Effect<EventStream, ClientError, Scope.Scope>
}

const networkReason = (error: unknown, timeoutMs: number): string => {
  if (error instanceof DOMException && error.name === "TimeoutError") return `No answer within ${timeoutMs / 1000} s`
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined
  const code = cause?.code
  if (code === "ECONNREFUSED") return "Connection refused: is `opencode serve` running there?"
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "The host name does not resolve"
  if (code === "ECONNRESET") return "The connection was reset"
  const text = cause?.message ?? (error instanceof Error ? error.message : String(error))
  return `Cannot reach the server: ${text}`
}

const decodeJson = Schema.decodeUnknownExit(Schema.fromJsonString(Schema.Unknown))

export function make(options: Options): Client {
  const timeoutMs = options.requestTimeoutMs ?? 15_000
  const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
    accept: "application/json",
    ...(options.authorization !== undefined ? { authorization: options.authorization } : {}),
    ...extra,
  })
  const urlOf = (path: string, directory: string | undefined) =>
    `${options.url}${path}${directory === undefined ? "" : `${path.includes("?") ? "&" : "?"}directory=${encodeURIComponent(directory)}`}`

  const request = (method: "GET" | "POST", path: string, directory: string | undefined, body?: unknown) =>
    Effect.gen(function* () {
      const response = yield* Effect.tryPromise({
        try: async (signal) => {
          const res = await fetch(urlOf(path, directory), {
            method,
            headers: headers(body === undefined ? {} : { "content-type": "application/json" }),
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
            // The credentials are for this server: never follow it elsewhere.
            redirect: "error",
          })
          return { status: res.status, text: await res.text() }
        },
        catch: (error) => new UnreachableError({ reason: networkReason(error, timeoutMs) }),
      })
      if (response.status === 401) return yield* new UnauthorizedError()
      if (response.status < 200 || response.status >= 300)
        return yield* new HttpError({ status: response.status, body: response.text })
      const json = decodeJson(response.text)
      if (json._tag === "Failure") return yield* new InvalidResponseError({ path, reason: "not JSON" })
      return json.value
    })

  const get: Client["get"] = (path, schema, directory) =>
    request("GET", path, directory).pipe(
      Effect.flatMap((value) =>
        Schema.decodeUnknownEffect(schema)(value).pipe(
          Effect.mapError((error) => new InvalidResponseError({ path, reason: error.message.split("\n")[0] ?? "" })),
        ),
      ),
    )

  const events: Client["events"] = Effect.gen(function* () {
    const controller = new AbortController()
    yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
    // Only the scope's controller may abort this fetch: a timeout signal would also cut the body,
    // which stays open for hours. The wait for the answer's head is bounded separately.
    const response = yield* Effect.tryPromise({
      try: () =>
        fetch(`${options.url}/global/event`, {
          headers: headers({ accept: "text/event-stream" }),
          signal: controller.signal,
          redirect: "error",
        }),
      catch: (error) => new UnreachableError({ reason: networkReason(error, timeoutMs) }),
    }).pipe(
      Effect.timeoutOrElse({
        duration: timeoutMs,
        orElse: () => Effect.fail(new UnreachableError({ reason: `No answer within ${timeoutMs / 1000} s` })),
      }),
    )
    if (response.status === 401) return yield* new UnauthorizedError()
    if (response.status < 200 || response.status >= 300 || response.body === null)
      return yield* new HttpError({
        status: response.status,
        body: yield* Effect.tryPromise(() => response.text()).pipe(
          Effect.timeoutOrElse({ duration: timeoutMs, orElse: () => Effect.succeed("") }),
          Effect.orElseSucceed(() => ""),
        ),
      })
    if (!(response.headers.get("content-type") ?? "").includes("text/event-stream"))
      return yield* new InvalidResponseError({ path: "/global/event", reason: "not an event stream" })
    const reader = response.body.getReader()
    yield* Effect.addFinalizer(() => Effect.promise(() => reader.cancel().catch(() => undefined)))
    // OpenCode sends whole diffs and message parts as events; one that big is none of Gatehouse's.
    const decoder = new SseDecoder(MAX_EVENT_CHARS)
    let ended = false
    const next: EventStream["next"] = Effect.tryPromise({
      try: async () => {
        for (;;) {
          if (ended) return null
          const { value, done } = await reader.read()
          if (done) {
            ended = true
            const last = decoder.end()
            return last.length > 0 ? last : null
          }
          const events = decoder.push(value)
          if (events.length > 0) return events
        }
      },
      catch: (error) => new UnreachableError({ reason: networkReason(error, timeoutMs) }),
    })
    return { next }
  })

  return {
    get,
    post: (path, body, directory) => request("POST", path, directory, body),
    events,
  }
}
