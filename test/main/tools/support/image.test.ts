import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import sharp from "sharp"
import { Image } from "@main/tools/support/image"

const limits = (overrides: Partial<Image.Limits> = {}): Image.Limits => ({
  ...Image.limitsFrom(undefined),
  ...overrides,
})

/** A real image of the given size; noise makes it compress badly, so sizes are realistic. */
const noise = (width: number, height: number, format: "png" | "jpeg" | "gif" | "webp", alpha = false) =>
  Effect.promise(() =>
    sharp({
      create: {
        width,
        height,
        channels: alpha ? 4 : 3,
        background: { r: 0, g: 0, b: 0, alpha: 0.5 },
        noise: { type: "gaussian", mean: 128, sigma: 60 },
      },
    })
      .toFormat(format)
      .toBuffer(),
  )

const dimensions = (base64: string) =>
  Effect.promise(() => sharp(Buffer.from(base64, "base64")).metadata()).pipe(
    Effect.map((metadata) => ({ width: metadata.width, height: metadata.height, format: metadata.format })),
  )

describe("Image", () => {
  it("reads attachments.image with its defaults", () => {
    assert.deepStrictEqual(Image.limitsFrom(undefined), {
      autoResize: true,
      maxWidth: 2000,
      maxHeight: 2000,
      maxBase64Bytes: 5 * 1024 * 1024,
    })
    assert.deepStrictEqual(Image.limitsFrom({ auto_resize: false, max_width: 10 }), {
      autoResize: false,
      maxWidth: 10,
      maxHeight: 2000,
      maxBase64Bytes: 5 * 1024 * 1024,
    })
  })

  it("tries sizes that fit the box, then shrink by 0.75, never repeating and at most 32", () => {
    assert.deepStrictEqual(Image.candidateSizes(4000, 1000, { maxWidth: 2000, maxHeight: 2000 }).slice(0, 3), [
      { width: 2000, height: 500 },
      { width: 1500, height: 375 },
      { width: 1125, height: 281 },
    ])
    const tiny = Image.candidateSizes(3, 3, { maxWidth: 2, maxHeight: 2 })
    assert.deepStrictEqual(tiny, [
      { width: 2, height: 2 },
      { width: 1, height: 1 },
    ])
    assert.strictEqual(Image.candidateSizes(1e9, 1e9, { maxWidth: 1e9, maxHeight: 1e9 }).length, 32)
  })

  it.effect("returns an image within the limits unchanged, for png, jpeg, gif and webp", () =>
    Effect.gen(function* () {
      const resizer = yield* Image.loadResizer
      for (const format of ["png", "jpeg", "gif", "webp"] as const) {
        const content = (yield* noise(16, 8, format)).toString("base64")
        const image = { content, mime: `image/${format}` }
        assert.strictEqual(yield* Image.normalize(resizer, "pic", image, limits()), image)
      }
    }),
  )

  it.effect("resizes a too-wide image into the box, keeping its aspect ratio", () =>
    Effect.gen(function* () {
      const resizer = yield* Image.loadResizer
      const content = (yield* noise(400, 100, "png")).toString("base64")
      const result = yield* Image.normalize(
        resizer,
        "wide.png",
        { content, mime: "image/png" },
        limits({ maxWidth: 200 }),
      )
      assert.deepStrictEqual(yield* dimensions(result.content), { width: 200, height: 50, format: "png" })
      assert.strictEqual(result.mime, "image/png")
    }),
  )

  it.effect("falls back to JPEG and smaller sizes until the base64 fits", () =>
    Effect.gen(function* () {
      const resizer = yield* Image.loadResizer
      const content = (yield* noise(300, 300, "png", true)).toString("base64")
      const result = yield* Image.normalize(
        resizer,
        "noisy.png",
        { content, mime: "image/png" },
        limits({ maxBase64Bytes: 20_000 }),
      )
      assert.strictEqual(result.mime, "image/jpeg")
      assert.isAtMost(Buffer.byteLength(result.content), 20_000)
      const size = yield* dimensions(result.content)
      assert.strictEqual(size.format, "jpeg")
      assert.strictEqual(size.width, size.height)
    }),
  )

  it.effect("refuses an image over the limits when resizing is off, naming size and limits", () =>
    Effect.gen(function* () {
      const resizer = yield* Image.loadResizer
      const content = (yield* noise(40, 30, "png")).toString("base64")
      const error = yield* Effect.flip(
        Image.normalize(
          resizer,
          "shots/big.png",
          { content, mime: "image/png" },
          limits({ autoResize: false, maxWidth: 20, maxHeight: 20 }),
        ),
      )
      assert.instanceOf(error, Image.SizeError)
      assert.strictEqual(
        error.message,
        `Image shots/big.png is 40x30 with base64 size ${content.length}, exceeding configured limits 20x20/5242880 bytes`,
      )
    }),
  )

  it.effect("refuses an image no candidate size can bring under the byte limit", () =>
    Effect.gen(function* () {
      const resizer = yield* Image.loadResizer
      const content = (yield* noise(50, 50, "png")).toString("base64")
      const error = yield* Effect.flip(
        Image.normalize(resizer, "x.png", { content, mime: "image/png" }, limits({ maxBase64Bytes: 10 })),
      )
      assert.instanceOf(error, Image.SizeError)
      assert.strictEqual(
        error.message,
        `Image x.png is 50x50 with base64 size ${content.length}, exceeding configured limits 2000x2000/10 bytes`,
      )
    }),
  )

  it.effect("reports data that only looks like an image as not decodable", () =>
    Effect.gen(function* () {
      const resizer = yield* Image.loadResizer
      const fake = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("junk")])
      const error = yield* Effect.flip(
        Image.normalize(resizer, "fake.png", { content: fake.toString("base64"), mime: "image/png" }, limits()),
      )
      assert.instanceOf(error, Image.DecodeError)
      assert.strictEqual(error.message, "Image could not be decoded: fake.png")
    }),
  )
})
