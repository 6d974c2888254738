/** One server-sent event: its `event:` type (when given) and its `data:` lines joined by `\n`. */
export interface SseEvent {
  readonly event: string | undefined
  readonly data: string
}

/**
 * Incremental `text/event-stream` decoder (the WHATWG rules the chat-completions servers follow):
 * bytes may be cut anywhere (inside a UTF-8 character, a line, or a `\r\n` pair) and the same
 * events come out. Comments (`: keep-alive`, OpenRouter's `: OPENROUTER PROCESSING`) and `id:` /
 * `retry:` fields are ignored.
 *
 * An event larger than `maxEventChars` (its unfinished line or its data so far) is skipped whole:
 * memory stays bounded whatever the server sends. Each character is scanned once.
 */
export class SseDecoder {
  private readonly decoder = new TextDecoder("utf-8")
  private buffer = ""
  /** How much of `buffer` is known to hold no line end. */
  private scanned = 0
  private event: string | undefined = undefined
  private data: Array<string> = []
  private dataChars = 0
  /** Inside an oversized event: every line up to the blank one that ends it is dropped. */
  private skipping = false

  constructor(private readonly maxEventChars = Number.POSITIVE_INFINITY) {}

  /** Feeds bytes; returns the events they completed. */
  push(bytes: Uint8Array): ReadonlyArray<SseEvent> {
    this.buffer += this.decoder.decode(bytes, { stream: true })
    return this.drain(false)
  }

  /**
   * The end of the stream. An event not closed by a blank line is still delivered: servers that
   * close right after their last `data:` line mean it.
   */
  end(): ReadonlyArray<SseEvent> {
    this.buffer += this.decoder.decode()
    const events = [...this.drain(true)]
    if (this.buffer !== "") {
      this.line(this.buffer, events)
      this.buffer = ""
    }
    this.dispatch(events)
    return events
  }

  private drain(final: boolean): ReadonlyArray<SseEvent> {
    const events: Array<SseEvent> = []
    let start = 0
    let i = this.scanned
    for (; i < this.buffer.length; i++) {
      const char = this.buffer[i]
      if (char !== "\n" && char !== "\r") continue
      // A lone `\r` at the end may be the first half of `\r\n`: wait for the next bytes.
      if (char === "\r" && i === this.buffer.length - 1 && !final) break
      this.line(this.buffer.slice(start, i), events)
      if (char === "\r" && this.buffer[i + 1] === "\n") i++
      start = i + 1
    }
    this.buffer = this.buffer.slice(start)
    this.scanned = Math.max(0, i - start)
    if (this.buffer.length > this.maxEventChars) {
      // An unfinished line already too long: drop it and the rest of its event.
      this.buffer = ""
      this.scanned = 0
      this.skip()
    }
    return events
  }

  private skip(): void {
    this.skipping = true
    this.data = []
    this.dataChars = 0
    this.event = undefined
  }

  private line(line: string, events: Array<SseEvent>): void {
    if (this.skipping) {
      if (line === "") this.skipping = false
      return
    }
    if (line === "") return this.dispatch(events)
    if (line.startsWith(":")) return
    const colon = line.indexOf(":")
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? "" : line.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    if (field === "data") {
      this.dataChars += value.length + 1
      if (this.dataChars > this.maxEventChars) return this.skip()
      this.data.push(value)
    } else if (field === "event") this.event = value
  }

  private dispatch(events: Array<SseEvent>): void {
    const data = this.data.join("\n")
    if (data !== "" && !this.skipping) events.push({ event: this.event, data })
    this.skipping = false
    this.data = []
    this.dataChars = 0
    this.event = undefined
  }
}
