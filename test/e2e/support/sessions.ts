import { mkdirSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import WebSocket from "ws"
import type { ServeProcess } from "./serve"

// Drives real agent sessions on a running headless host, the way the UI and the CLI do: over the
// contract's WebSocket with the supervisor token. `sessions.start` runs the built-in runner with
// the scripted provider, so every ask in the inbox comes from a real tool call.

export interface ContractResult {
  readonly _tag: "Success" | "Failure"
  readonly value?: unknown
  readonly cause?: unknown
}

export interface ContractClient {
  /** Calls a method; resolves with the encoded Exit. */
  readonly call: (method: string, payload?: unknown) => Promise<ContractResult>
  /** Calls a method and returns its success value (throws with the cause otherwise). */
  readonly ok: <A = unknown>(method: string, payload?: unknown) => Promise<A>
  /** Resolves once `count` events with this tag have arrived since the client connected. */
  readonly events: (tag: string, count: number) => Promise<void>
  readonly close: () => void
}

export async function connectContract(host: Pick<ServeProcess, "port" | "token">): Promise<ContractClient> {
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, ["gatehouse", `bearer.${host.token}`])
  const pending = new Map<number, (exit: ContractResult) => void>()
  const seen = new Map<string, number>()
  const waiters = new Set<{ tag: string; count: number; resolve: () => void }>()
  ws.on("message", (data) => {
    const message = JSON.parse(String(data)) as
      | { type: "result"; id: number; exit: ContractResult }
      | { type: "events"; batch: { events: ReadonlyArray<{ event: { _tag: string } }> } }
    if (message.type === "result") {
      pending.get(message.id)?.(message.exit)
      pending.delete(message.id)
      return
    }
    for (const { event } of message.batch.events) seen.set(event._tag, (seen.get(event._tag) ?? 0) + 1)
    for (const waiter of waiters)
      if ((seen.get(waiter.tag) ?? 0) >= waiter.count) {
        waiters.delete(waiter)
        waiter.resolve()
      }
  })
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve())
    ws.once("error", reject)
  })
  let nextId = 1
  const call = (method: string, payload?: unknown) =>
    new Promise<ContractResult>((resolve) => {
      const id = nextId++
      pending.set(id, resolve)
      ws.send(JSON.stringify({ id, method, payload: payload ?? null }))
    })
  return {
    call,
    ok: async <A>(method: string, payload?: unknown) => {
      const exit = await call(method, payload)
      if (exit._tag !== "Success") throw new Error(`${method} failed: ${JSON.stringify(exit.cause)}`)
      return exit.value as A
    },
    events: (tag, count) =>
      (seen.get(tag) ?? 0) >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.add({ tag, count, resolve })),
    close: () => ws.close(),
  }
}

/** Rules appended to the built-in `build` agent so that these actions ask (last match wins). */
export function writeAskConfig(dataDir: string, actions: ReadonlyArray<string>) {
  const rules = actions.map((action) => ({ action, resource: "*", effect: "ask" }))
  writeFileSync(join(dataDir, "config.jsonc"), JSON.stringify({ agents: { build: rules } }, null, 2))
}

/** One assistant turn of a scripted session: the tool calls it makes, all at once. */
export interface ScriptTurn {
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly input: unknown }>
}

/** A fresh project directory under `root`. */
export function makeProject(root: string, name: string): string {
  const directory = join(root, name)
  mkdirSync(directory, { recursive: true })
  return realpathSync(directory)
}

let scripts = 0

/** Starts a runner session in `project` that replays `turns`; resolves with the session. */
export async function startScripted(
  client: ContractClient,
  project: string,
  turns: ReadonlyArray<ScriptTurn>,
  title: string,
): Promise<{ readonly id: string; readonly title: string }> {
  const script = `script-${process.pid}-${++scripts}.jsonl`
  writeFileSync(join(project, script), turns.map((turn) => JSON.stringify(turn)).join("\n") + "\n")
  return client.ok("sessions.start", { project, title, provider: { type: "scripted", script }, prompt: title })
}

/** `count` bash calls in one turn: they run (and ask) in parallel. */
export const bashTurn = (commands: ReadonlyArray<string>): ScriptTurn => ({
  toolCalls: commands.map((command) => ({ name: "bash", input: { command } })),
})
