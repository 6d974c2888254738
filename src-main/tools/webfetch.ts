import { Duration, Effect, Schema } from "effect"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Tool } from "@core/tool/Tool"
import { htmlToMarkdown, htmlToText } from "./support/html"
import { announcedLength, BodyTooLargeError, readBounded } from "./support/httpBody"
import { assertAction } from "./support/permission"

export * as WebFetchTool from "./webfetch"

export const name = "webfetch"
/** Bodies above this are refused, whether or not the server announced their length. */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024
export const DEFAULT_TIMEOUT_SECONDS = 30
export const MAX_TIMEOUT_SECONDS = 120
/** Redirect hops followed before giving up. */
export const MAX_REDIRECTS = 10
export const BROWSER_USER_AGENT =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36"
/** Cloudflare lets this User-Agent through where it challenges browser-looking clients (SPEC-CORE E.8). */
export const CHALLENGE_USER_AGENT = "opencode"

export const description = `Fetches content from an http:// or https:// URL and returns it as markdown (the default), text, or html.

- HTML pages are converted to Markdown for "markdown", reduced to their visible text for "text", and returned unchanged for "html". Other textual responses (plain text, Markdown, JSON, XML, JavaScript) are returned as they are.
- Only textual content is fetched; images, PDFs and other binary files are refused.
- Responses over 5 MB are refused. The request times out after ${DEFAULT_TIMEOUT_SECONDS} seconds unless "timeout" says otherwise (at most ${MAX_TIMEOUT_SECONDS}).
- This tool is read-only. Prefer a more specific tool when one exists.`

export const Format = Schema.Literals(["text", "markdown", "html"])
export type Format = typeof Format.Type

export const Input = Schema.Struct({
  url: Schema.String.annotate({ description: "The http:// or https:// URL to fetch" }),
  format: Format.pipe(Schema.withDecodingDefault(Effect.succeed("markdown" as const))).annotate({
    description: "The format to return the content in: text, markdown or html (default: markdown)",
  }),
  timeout: Schema.optional(
    Schema.Finite.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(MAX_TIMEOUT_SECONDS)).annotate({
      description: `Timeout in seconds (default: ${DEFAULT_TIMEOUT_SECONDS}, maximum: ${MAX_TIMEOUT_SECONDS})`,
    }),
  ),
})
export type Input = typeof Input.Type

export const Output = Schema.Struct({
  url: Schema.String,
  /** The response's Content-Type header as sent (empty when there was none). */
  contentType: Schema.String,
  format: Format,
  output: Schema.String,
})
export type Output = typeof Output.Type

/** Why a fetch failed; the tool reports it as `Unable to fetch <url>: <reason>`. */
export class FetchError extends Schema.TaggedError<FetchError>()("WebFetchTool.FetchError", {
  reason: Schema.String,
}) {
  override get message() {
    return this.reason
  }
}

export const acceptHeader = (format: Format): string => {
  switch (format) {
    case "markdown":
      return "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1"
    case "text":
      return "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1"
    case "html":
      return "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, text/markdown;q=0.7, */*;q=0.1"
  }
}

/** The media type alone, lower-cased: `text/html; charset=utf-8` → `text/html`. */
export const mimeOf = (contentType: string): string => contentType.split(";", 1)[0]!.trim().toLowerCase()

/** `text/*`, JSON, `+json`, XML, `+xml`, JavaScript, or no type at all. */
export const isTextual = (mime: string): boolean =>
  mime === "" ||
  mime.startsWith("text/") ||
  mime === "application/json" ||
  mime.endsWith("+json") ||
  mime === "application/xml" ||
  mime.endsWith("+xml") ||
  mime === "application/javascript" ||
  mime === "application/x-javascript"

const isHtml = (mime: string) => mime === "text/html" || mime === "application/xhtml+xml"

/** The body as the requested format; only HTML is converted. */
export function convert(body: string, contentType: string, format: Format): string {
  if (!isHtml(mimeOf(contentType))) return body
  if (format === "markdown") return htmlToMarkdown(body)
  if (format === "text") return htmlToText(body)
  return body
}

/** Fails a fetch from inside the download with a reason the model can read. */
class Refused extends Error {}

const REDIRECT = new Set([301, 302, 303, 307, 308])

/** GET with manual redirects, so each hop is checked to stay http(s) and the hop count is ours. */
async function follow(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
  let current = url
  for (let hop = 0; ; hop++) {
    const response = await fetch(current.href, { method: "GET", headers, redirect: "manual", signal })
    const location = response.headers.get("location")
    if (!REDIRECT.has(response.status) || location === null) return response
    await response.body?.cancel()
    if (hop === MAX_REDIRECTS) throw new Refused(`Too many redirects (more than ${MAX_REDIRECTS})`)
    const next = URL.canParse(location, current.href) ? new URL(location, current) : undefined
    if (next === undefined || (next.protocol !== "http:" && next.protocol !== "https:"))
      throw new Refused(`Redirected to a URL that is not http:// or https://: ${location}`)
    current = next
  }
}

/** Decodes with the declared charset when the platform knows it, else UTF-8 (never throws). */
function decode(bytes: Uint8Array, contentType: string): string {
  const label = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1]
  let decoder = new TextDecoder("utf-8")
  if (label !== undefined) {
    try {
      decoder = new TextDecoder(label)
    } catch {
      // An unknown charset label: UTF-8 is the web's default.
    }
  }
  return decoder.decode(bytes)
}

interface Downloaded {
  readonly contentType: string
  readonly body: string
}

async function download(url: URL, format: Format, signal: AbortSignal): Promise<Downloaded> {
  const headers = (userAgent: string) => ({
    "User-Agent": userAgent,
    Accept: acceptHeader(format),
    "Accept-Language": "en-US,en;q=0.9",
  })
  let response = await follow(url, headers(BROWSER_USER_AGENT), signal)
  if (response.status === 403 && response.headers.get("cf-mitigated") === "challenge") {
    await response.body?.cancel()
    response = await follow(url, headers(CHALLENGE_USER_AGENT), signal)
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw new Refused(`Request failed with status code ${response.status}`)
  }
  const contentType = response.headers.get("content-type") ?? ""
  const mime = mimeOf(contentType)
  if (!isTextual(mime)) {
    await response.body?.cancel()
    throw new Refused(`Unsupported fetched file content type: ${mime}`)
  }
  const tooLarge = `Response too large (exceeds ${MAX_RESPONSE_BYTES} byte limit)`
  if ((announcedLength(response.headers) ?? 0) > MAX_RESPONSE_BYTES) {
    await response.body?.cancel()
    throw new Refused(tooLarge)
  }
  const bytes = await readBounded(response.body, MAX_RESPONSE_BYTES).catch((error: unknown) => {
    throw error instanceof BodyTooLargeError ? new Refused(tooLarge) : error
  })
  return { contentType, body: decode(bytes, contentType) }
}

/** What a failed fetch says: our own refusals as written, network errors with their cause. */
function reasonOf(error: unknown): string {
  if (error instanceof Refused) return error.message
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? error.cause.message : undefined
    return cause ? `${error.message}: ${cause}` : error.message
  }
  return String(error)
}

/** The URL if it is http(s); checked before anything is asked. */
function parseUrl(raw: string): Effect.Effect<URL, FetchError> {
  if (!URL.canParse(raw)) return Effect.fail(new FetchError({ reason: "Invalid URL" }))
  const url = new URL(raw)
  return url.protocol === "http:" || url.protocol === "https:"
    ? Effect.succeed(url)
    : Effect.fail(new FetchError({ reason: "URL must use http:// or https://" }))
}

/**
 * `webfetch` (SPEC-CORE E.8): http(s) only, checked before asking; then `webfetch` is asserted
 * with the URL, and only then is anything sent. Every failure reads `Unable to fetch <url>: <reason>`.
 */
export const make = Effect.gen(function* () {
  const permission = yield* PermissionV2.Service

  return Tool.make({
    description,
    input: Input,
    output: Output,
    toModelOutput: ({ output }) => [{ type: "text", text: output.output }],
    execute: (input, context) =>
      Effect.gen(function* () {
        const url = yield* parseUrl(input.url)
        yield* assertAction(permission, context, {
          action: name,
          resources: [input.url],
          save: ["*"],
          metadata: { ...input },
        })
        const downloaded = yield* Effect.tryPromise({
          try: (signal) => download(url, input.format, signal),
          catch: (error) => new FetchError({ reason: reasonOf(error) }),
        }).pipe(
          Effect.timeoutOrElse({
            duration: Duration.seconds(input.timeout ?? DEFAULT_TIMEOUT_SECONDS),
            orElse: () => Effect.fail(new FetchError({ reason: "Request timed out" })),
          }),
        )
        const output = yield* Effect.try({
          try: () => convert(downloaded.body, downloaded.contentType, input.format),
          catch: (error) => new FetchError({ reason: `Unable to convert the content: ${reasonOf(error)}` }),
        })
        return { url: input.url, contentType: downloaded.contentType, format: input.format, output }
      }).pipe(
        // Typed failures only: a plain decline stays a defect (PermissionV2's tunnel) and stops the run.
        Effect.mapError(
          (error) => new Tool.ToolFailure({ message: `Unable to fetch ${input.url}: ${error.message}`, error }),
        ),
      ),
  })
})
