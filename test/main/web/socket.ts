import WebSocket from "ws"

// A test client for the contract socket: sends requests, collects every message, and waits for
// the one a test needs (no sleeps).

export interface ResultMessage {
  readonly type: "result"
  readonly id: number
  readonly exit: { readonly _tag: "Success" | "Failure"; readonly value?: unknown; readonly cause?: unknown }
}
export interface EventsMessage {
  readonly type: "events"
  readonly batch: {
    readonly events: ReadonlyArray<{ readonly seq: number; readonly event: { readonly _tag: string } }>
  }
}
export type Message = ResultMessage | EventsMessage

export interface Client {
  readonly ws: WebSocket
  readonly messages: Array<Message>
  readonly request: (method: string, payload?: unknown) => Promise<ResultMessage>
  readonly waitFor: (predicate: (message: Message) => boolean) => Promise<Message>
  readonly closed: Promise<{ readonly code: number; readonly reason: string }>
}

export async function connect(port: number, token: string): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, ["gatehouse", `bearer.${token}`])
  const messages: Array<Message> = []
  const waiters = new Set<{ predicate: (message: Message) => boolean; resolve: (message: Message) => void }>()
  ws.on("message", (data) => {
    const message = JSON.parse(String(data)) as Message
    messages.push(message)
    for (const waiter of waiters) {
      if (waiter.predicate(message)) {
        waiters.delete(waiter)
        waiter.resolve(message)
      }
    }
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  )
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve())
    ws.once("error", reject)
  })
  let nextId = 1
  const waitFor = (predicate: (message: Message) => boolean) => {
    const seen = messages.find(predicate)
    if (seen) return Promise.resolve(seen)
    return new Promise<Message>((resolve) => waiters.add({ predicate, resolve }))
  }
  return {
    ws,
    messages,
    waitFor,
    closed,
    request: (method, payload) => {
      const id = nextId++
      ws.send(JSON.stringify(payload === undefined ? { id, method } : { id, method, payload }))
      return waitFor((message) => message.type === "result" && message.id === id) as Promise<ResultMessage>
    },
  }
}
