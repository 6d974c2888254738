import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { arch, networkInterfaces, platform } from "node:os"
import { dirname, join } from "node:path"
import {
  callDelta,
  chunk,
  startOpenAIServer,
  streamReply,
  textChunks,
  type OpenAIServer,
  type Reply,
} from "./openai-server"

// The real OpenCode (`opencode-ai`, a dev dependency) for tests: its binary, an isolated home, a
// project wired to a scripted local model, and `opencode serve` on a free loopback port.
//
// The binary comes from the platform package npm installs as an optional dependency
// (`opencode-linux-x64`, …). `opencode-ai`'s own postinstall (which copies it and may run
// `npm install` itself) is denied in package.json's allowScripts: resolving the platform package
// here is all it did that tests need.

const require = createRequire(import.meta.url)

/** The package's own version, so the seeded config directory matches what the server expects. */
export const opencodeVersion = (): string | undefined => {
  try {
    return (require("opencode-ai/package.json") as { version: string }).version
  } catch {
    return undefined
  }
}

function candidates(): ReadonlyArray<string> {
  const os = platform() === "win32" ? "windows" : platform()
  const cpu = arch()
  const base = `opencode-${os}-${cpu}`
  if (os === "linux" && cpu === "x64") return [base, `${base}-baseline`, `${base}-musl`, `${base}-baseline-musl`]
  if (os === "linux") return [base, `${base}-musl`]
  if (cpu === "x64") return [base, `${base}-baseline`]
  return [base]
}

let found: { readonly path?: string; readonly reason?: string } | undefined

/** The `opencode` binary that runs here, or why there is none (for a one-line skip). */
export function opencodeBinary(): { readonly path?: string; readonly reason?: string } {
  if (found) return found
  const tried: Array<string> = []
  for (const name of candidates()) {
    let path: string
    try {
      path = join(
        dirname(require.resolve(`${name}/package.json`)),
        "bin",
        platform() === "win32" ? "opencode.exe" : "opencode",
      )
    } catch {
      tried.push(`${name} (not installed)`)
      continue
    }
    if (!existsSync(path)) {
      tried.push(`${name} (no binary)`)
      continue
    }
    const run = spawnSync(path, ["--version"], { encoding: "utf8", timeout: 30_000 })
    if (run.status === 0) return (found = { path })
    tried.push(`${name} (does not run: ${run.error?.message ?? `exit ${run.status}`})`)
  }
  return (found = { reason: `no runnable OpenCode binary: ${tried.join(", ")}` })
}

/** An isolated home for OpenCode: its own config, data, cache and state; nothing is fetched. */
export function opencodeHome(root: string): Record<string, string> {
  const home = join(root, "home")
  const config = join(home, "config", "opencode")
  mkdirSync(join(config, "node_modules"), { recursive: true })
  // OpenCode installs `@opencode-ai/plugin` into its config directory in the background unless a
  // lock file already lists it: pretend it is installed, so no test reaches the npm registry.
  const dependencies = { "@opencode-ai/plugin": opencodeVersion() ?? "latest" }
  writeFileSync(join(config, "package.json"), JSON.stringify({ dependencies }))
  writeFileSync(
    join(config, "package-lock.json"),
    JSON.stringify({ lockfileVersion: 3, packages: { "": { dependencies } } }),
  )
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_DATA_HOME: join(home, "data"),
    XDG_CACHE_HOME: join(home, "cache"),
    XDG_STATE_HOME: join(home, "state"),
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
  }
}

/** `opencode.json` for a project: the scripted local model, and every bash command asks. */
export function writeOpencodeProject(directory: string, modelBaseUrl: string): void {
  mkdirSync(directory, { recursive: true })
  writeFileSync(
    join(directory, "opencode.json"),
    JSON.stringify({
      $schema: "https://opencode.ai/config.json",
      provider: {
        local: {
          npm: "@ai-sdk/openai-compatible",
          name: "Local test model",
          options: { baseURL: modelBaseUrl, apiKey: "test" },
          models: { "test-model": { name: "Test model" } },
        },
      },
      model: "local/test-model",
      small_model: "local/test-model",
      permission: { bash: "ask" },
    }),
  )
}

export interface OpencodeServer {
  readonly url: string
  readonly port: number
  /** SIGTERM, then waits for the exit. */
  readonly stop: () => Promise<void>
  /** Everything it wrote, for failure messages. */
  readonly output: () => string
}

/** `opencode serve` in `directory` on `port` (0: any free one); resolves once it listens. */
export function startOpencode(options: {
  readonly directory: string
  readonly env: Record<string, string>
  readonly port?: number
  readonly password?: string
  /** The address to listen on (default 127.0.0.1). */
  readonly hostname?: string
}): Promise<OpencodeServer> {
  const binary = opencodeBinary().path
  if (!binary) return Promise.reject(new Error(opencodeBinary().reason))
  const child: ChildProcess = spawn(
    binary,
    ["serve", "--port", String(options.port ?? 0), "--hostname", options.hostname ?? "127.0.0.1"],
    {
      cwd: options.directory,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        ...options.env,
        ...(options.password !== undefined ? { OPENCODE_SERVER_PASSWORD: options.password } : {}),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  )
  let output = ""
  const exited = new Promise<void>((done) => child.once("exit", () => done()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`opencode serve did not listen within 60 s:\n${output}`))
    }, 60_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`opencode serve exited with ${code}:\n${output}`))
    })
    const onData = (data: Buffer) => {
      output += data.toString("utf8")
      const match = /opencode server listening on (http:\/\/[0-9.]+:(\d+))/.exec(output)
      if (!match) return
      clearTimeout(timer)
      resolve({
        url: match[1]!,
        port: Number(match[2]),
        output: () => output,
        stop: () => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
          return exited
        },
      })
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
  })
}

/** A streamed assistant turn that calls bash once (or several times at once) with these commands. */
export function bashTurn(...commands: ReadonlyArray<string>): Reply {
  return streamReply([
    chunk({ role: "assistant", content: "" }),
    ...commands.flatMap((command, index) => [
      chunk({ tool_calls: [callDelta(index, { id: `call_${index}_${command.length}`, name: "bash", arguments: "" })] }),
      chunk({ tool_calls: [callDelta(index, { arguments: JSON.stringify({ command, description: "Run it" }) })] }),
    ]),
    chunk({}, "tool_calls"),
  ])
}

export interface ScriptedModel {
  readonly server: OpenAIServer
  /**
   * Queues the agent's replies to a prompt: the turn that answers the person's message `prompt`
   * takes the next one. Keyed by prompt, so sessions working at the same time never take each
   * other's turns.
   */
  readonly queue: (prompt: string, ...replies: ReadonlyArray<Reply>) => void
  /** The agent's turns so far (requests that offered tools), in order. */
  readonly turns: () => ReadonlyArray<{ readonly body: unknown }>
}

type ChatMessage = { readonly role?: string; readonly content?: unknown }

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join("")
      : ""

/**
 * A local chat-completions model for OpenCode. A turn that answers a person's message follows the
 * queue for that message; a turn after tool results says "Done."; everything else OpenCode asks
 * (session titles: no tools offered) gets a short text.
 */
export async function startScriptedModel(): Promise<ScriptedModel> {
  const script = new Map<string, Array<Reply>>()
  const agentTurns: Array<{ readonly body: unknown }> = []
  const server = await startOpenAIServer({
    fallback: (request) => {
      const body = request.body as { tools?: ReadonlyArray<unknown>; messages?: ReadonlyArray<ChatMessage> } | undefined
      if (!body?.tools?.length) return streamReply(textChunks("Test session"))
      agentTurns.push({ body })
      const last = body.messages?.at(-1)
      const queued = last?.role === "user" ? script.get(textOf(last.content).trim())?.shift() : undefined
      return queued ?? streamReply(textChunks("Done."))
    },
  })
  return {
    server,
    queue: (prompt, ...replies) => {
      const queued = script.get(prompt) ?? []
      queued.push(...replies)
      script.set(prompt, queued)
    },
    turns: () => agentTurns,
  }
}

// --- The server's API, as a test drives it --------------------------------------------------

export interface RemoteAsk {
  readonly id: string
  readonly sessionID: string
  readonly permission: string
  readonly patterns: ReadonlyArray<string>
}

const json = async (response: Response) => {
  if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status} ${await response.text()}`)
  return (await response.json()) as unknown
}

export const opencodeApi = (url: string, password?: string) => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (password !== undefined) headers.authorization = `Basic ${Buffer.from(`opencode:${password}`).toString("base64")}`
  return {
    createSession: async () =>
      (await json(await fetch(`${url}/session`, { method: "POST", headers, body: "{}" }))) as {
        id: string
        directory: string
        title: string
      },
    prompt: async (sessionID: string, text: string) => {
      const response = await fetch(`${url}/session/${sessionID}/prompt_async`, {
        method: "POST",
        headers,
        body: JSON.stringify({ parts: [{ type: "text", text }] }),
      })
      if (!response.ok) throw new Error(`prompt: HTTP ${response.status}`)
    },
    /** Stops the session's current turn, as the TUI's Escape does. */
    abort: async (sessionID: string) =>
      json(await fetch(`${url}/session/${sessionID}/abort`, { method: "POST", headers })),
    permissions: async () => (await json(await fetch(`${url}/permission`, { headers }))) as ReadonlyArray<RemoteAsk>,
    reply: async (requestID: string, body: { reply: "once" | "always" | "reject"; message?: string }) =>
      json(
        await fetch(`${url}/permission/${requestID}/reply`, { method: "POST", headers, body: JSON.stringify(body) }),
      ),
    /** Every tool part of the session's messages: the tool, its state and its output. */
    toolParts: async (sessionID: string) => {
      const messages = (await json(await fetch(`${url}/session/${sessionID}/message`, { headers }))) as ReadonlyArray<{
        parts: ReadonlyArray<{
          type: string
          tool?: string
          state?: { status: string; output?: string; error?: string }
        }>
      }>
      return messages.flatMap((message) => message.parts.filter((part) => part.type === "tool"))
    },
  }
}

/** Polls an external process's state (no event to wait on there) until `check` holds; bounded. */
export async function eventually<A>(
  what: string,
  check: () => Promise<A | undefined> | A | undefined,
  timeoutMs = 30_000,
): Promise<A> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value !== undefined && value !== false) return value
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ""}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** This machine's first IPv4 address that is not loopback, for a server "on another machine". */
export function externalAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces()))
    for (const address of addresses ?? []) if (address.family === "IPv4" && !address.internal) return address.address
  return undefined
}
