import { Effect, Schema } from "effect"
import type sharp from "sharp"
import type { Config } from "@core/config/Config"

export * as Image from "./image"

// Image normalization for `read` (SPEC-CORE E.1, project decision 7: sharp). An image that fits the
// configured limits is returned untouched; otherwise it is resized (aspect kept) and re-encoded,
// PNG first, then JPEG at falling qualities, shrinking by 0.75 per attempt.

export const DEFAULT_MAX_WIDTH = 2_000
export const DEFAULT_MAX_HEIGHT = 2_000
export const DEFAULT_MAX_BASE64_BYTES = 5 * 1024 * 1024
export const JPEG_QUALITIES: ReadonlyArray<number> = [80, 85, 70, 55, 40]
export const MAX_SIZES = 32
export const SHRINK = 0.75

/** sharp (or its native binary) cannot be loaded; `read` then returns the original image. */
export class ResizerUnavailableError extends Schema.TaggedError<ResizerUnavailableError>()(
  "Image.ResizerUnavailableError",
  { cause: Schema.Defect() },
) {
  override get message() {
    return "Image resizer is unavailable"
  }
}

export class DecodeError extends Schema.TaggedError<DecodeError>()("Image.DecodeError", {
  resource: Schema.String,
}) {
  override get message() {
    return `Image could not be decoded: ${this.resource}`
  }
}

export class SizeError extends Schema.TaggedError<SizeError>()("Image.SizeError", {
  resource: Schema.String,
  width: Schema.Number,
  height: Schema.Number,
  bytes: Schema.Number,
  maxWidth: Schema.Number,
  maxHeight: Schema.Number,
  maxBytes: Schema.Number,
}) {
  override get message() {
    return `Image ${this.resource} is ${this.width}x${this.height} with base64 size ${this.bytes}, exceeding configured limits ${this.maxWidth}x${this.maxHeight}/${this.maxBytes} bytes`
  }
}

export interface Limits {
  readonly autoResize: boolean
  readonly maxWidth: number
  readonly maxHeight: number
  readonly maxBase64Bytes: number
}

type ImageConfig = NonNullable<NonNullable<Config.GatehouseConfig["attachments"]>["image"]>

/** `attachments.image` with its defaults. */
export const limitsFrom = (image: ImageConfig | undefined): Limits => ({
  autoResize: image?.auto_resize ?? true,
  maxWidth: image?.max_width ?? DEFAULT_MAX_WIDTH,
  maxHeight: image?.max_height ?? DEFAULT_MAX_HEIGHT,
  maxBase64Bytes: image?.max_base64_bytes ?? DEFAULT_MAX_BASE64_BYTES,
})

export interface Encoded {
  /** base64 */
  readonly content: string
  readonly mime: string
}

type Sharp = typeof sharp

/** Loads sharp once per caller (cache the effect with `Effect.cached`). */
export const loadResizer: Effect.Effect<Sharp, ResizerUnavailableError> = Effect.tryPromise({
  try: () => import("sharp").then((module) => module.default),
  catch: (cause) => new ResizerUnavailableError({ cause }),
})

/**
 * The sizes to try, largest first: the image scaled into the box, then ×0.75 per step (never below
 * 1 px), without repeats, at most {@link MAX_SIZES}.
 */
export function candidateSizes(
  width: number,
  height: number,
  limits: Pick<Limits, "maxWidth" | "maxHeight">,
): ReadonlyArray<{ readonly width: number; readonly height: number }> {
  const scale = Math.min(1, limits.maxWidth / width, limits.maxHeight / height)
  let current = { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) }
  const sizes = [current]
  for (let step = 1; step < MAX_SIZES; step++) {
    const next = {
      width: Math.max(1, Math.floor(current.width * SHRINK)),
      height: Math.max(1, Math.floor(current.height * SHRINK)),
    }
    if (next.width === current.width && next.height === current.height) break
    sizes.push(next)
    current = next
  }
  return sizes
}

const base64Bytes = (base64: string) => Buffer.byteLength(base64, "utf8")

/**
 * Returns `image` as is when it fits `limits`; otherwise a resized PNG or JPEG that does, or a
 * {@link SizeError} (also when resizing is switched off). Unreadable image data is a
 * {@link DecodeError}.
 */
export const normalize = Effect.fn("Image.normalize")(function* (
  sharp: Sharp,
  resource: string,
  image: Encoded,
  limits: Limits,
) {
  const input = Buffer.from(image.content, "base64")
  const metadata = yield* Effect.tryPromise({
    try: () => sharp(input, { autoOrient: true }).metadata(),
    catch: () => new DecodeError({ resource }),
  })
  const width = metadata.autoOrient?.width ?? metadata.width
  const height = metadata.autoOrient?.height ?? metadata.height
  if (!width || !height) return yield* new DecodeError({ resource })
  const bytes = base64Bytes(image.content)
  if (width <= limits.maxWidth && height <= limits.maxHeight && bytes <= limits.maxBase64Bytes) return image
  const tooLarge = new SizeError({
    resource,
    width,
    height,
    bytes,
    maxWidth: limits.maxWidth,
    maxHeight: limits.maxHeight,
    maxBytes: limits.maxBase64Bytes,
  })
  if (!limits.autoResize) return yield* tooLarge
  for (const size of candidateSizes(width, height, limits)) {
    const resized = () => sharp(input, { autoOrient: true }).resize(size.width, size.height, { fit: "fill" })
    const encode = (build: () => Promise<Buffer>) =>
      Effect.tryPromise({ try: build, catch: () => new DecodeError({ resource }) }).pipe(
        Effect.map((buffer) => buffer.toString("base64")),
      )
    const png = yield* encode(() => resized().png().toBuffer())
    if (base64Bytes(png) <= limits.maxBase64Bytes) return { content: png, mime: "image/png" }
    for (const quality of JPEG_QUALITIES) {
      // JPEG has no alpha: transparent pixels become white rather than black.
      const jpeg = yield* encode(() => resized().flatten({ background: "#ffffff" }).jpeg({ quality }).toBuffer())
      if (base64Bytes(jpeg) <= limits.maxBase64Bytes) return { content: jpeg, mime: "image/jpeg" }
    }
  }
  return yield* tooLarge
})
