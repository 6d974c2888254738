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
 */
export class SseDecoder {
  private readonly decoder = new TextDecoder("utf-8")
  private buffer = ""
  private event: string | undefined = undefined
  private data: Array<string> = []

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
    for (let i = 0; i < this.buffer.length; i++) {
      const char = this.buffer[i]
      if (char !== "\n" && char !== "\r") continue
      // A lone `\r` at the end may be the first half of `\r\n`: wait for the next bytes.
      if (char === "\r" && i === this.buffer.length - 1 && !final) break
      this.line(this.buffer.slice(start, i), events)
      if (char === "\r" && this.buffer[i + 1] === "\n") i++
      start = i + 1
    }
    this.buffer = this.buffer.slice(start)
    return events
  }

  private line(line: string, events: Array<SseEvent>): void {
    if (line === "") return this.dispatch(events)
    if (line.startsWith(":")) return
    const colon = line.indexOf(":")
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? "" : line.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    if (field === "data") this.data.push(value)
    else if (field === "event") this.event = value
  }

  private dispatch(events: Array<SseEvent>): void {
    const data = this.data.join("\n")
    if (data !== "") events.push({ event: this.event, data })
    this.data = []
    this.event = undefined
  }
}
