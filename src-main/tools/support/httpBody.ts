// Response bodies of the web tools are read with a byte budget: a server that sends no
// Content-Length (chunked) or lies about it still cannot make us hold more than the limit.

/** Thrown when a body passes its limit; the stream has been cancelled. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Response body exceeds ${limit} bytes`)
  }
}

/** The announced Content-Length, when it is a number. */
export function announcedLength(headers: Headers): number | undefined {
  const value = Number(headers.get("content-length") ?? Number.NaN)
  return Number.isFinite(value) ? value : undefined
}

/** Reads at most `limit` bytes: exactly `limit` is fine, one more cancels the stream and throws. */
export async function readBounded(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Buffer> {
  if (body === null) return Buffer.alloc(0)
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return Buffer.concat(chunks)
    total += value.byteLength
    if (total > limit) {
      await reader.cancel()
      throw new BodyTooLargeError(limit)
    }
    chunks.push(value)
  }
}
