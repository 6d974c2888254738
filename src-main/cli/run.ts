import { basename, resolve } from "node:path"
import { parseArgs } from "node:util"
import type { ProviderChoice, SessionsStartInput } from "@contract/methods"
import type { Envelope } from "@contract/events"
import type { Session, SessionStatus } from "@contract/model"
import { connect, type Client } from "./client"
import { findHost } from "./host"
import { UsageError, type Io } from "./io"

export const runUsage = `Usage:
  gatehouse run [--project DIR] [--agent NAME] [--title TEXT] [--prompt TEXT] [--wait]
                --provider scripted --script FILE
  gatehouse run [--project DIR] [--agent NAME] [--title TEXT] --prompt TEXT [--wait]
                --provider openai-compatible (--name CONFIGURED | --base-url URL --model MODEL [--api-key-env VAR] [--stream])

Starts a session in the Gatehouse that is running for this data directory (GATEHOUSE_DATA_DIR, or
the default one) and prints its id. --project defaults to the current directory. With --api-key-env
the key is read from this shell's environment when it is set there, else from Gatehouse's.
--wait follows the session until it ends: exit 0 when it ends idle or stopped, 1 when it fails or
is declined.`

/** The statuses a session does not leave by itself. */
const FINAL: ReadonlySet<SessionStatus> = new Set(["idle", "stopped", "declined", "failed"])

/** The exit code of a `--wait` for a session that ended like this. */
export const exitCodeFor = (status: SessionStatus): number => (status === "failed" || status === "declined" ? 1 : 0)

export interface RunArgs {
  readonly input: SessionsStartInput
  readonly wait: boolean
}

/** Parses `run`'s arguments into the `sessions.start` payload; throws {@link UsageError}. */
export function parseRunArgs(argv: ReadonlyArray<string>, io: Pick<Io, "cwd" | "env">): RunArgs {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        project: { type: "string" },
        agent: { type: "string" },
        title: { type: "string" },
        prompt: { type: "string" },
        provider: { type: "string" },
        script: { type: "string" },
        name: { type: "string" },
        "base-url": { type: "string" },
        model: { type: "string" },
        "api-key-env": { type: "string" },
        stream: { type: "boolean" },
        wait: { type: "boolean" },
      },
    })
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n\n${runUsage}`)
  }
  const values = parsed.values
  const fail = (message: string): never => {
    throw new UsageError(`${message}\n\n${runUsage}`)
  }
  const inline = ["base-url", "model", "api-key-env", "stream"] as const
  let provider: ProviderChoice
  if (values.provider === "scripted") {
    if (!values.script) return fail("--provider scripted needs --script FILE")
    const extra = ([...inline, "name"] as const).find((key) => values[key] !== undefined)
    if (extra) return fail(`--${extra} is for --provider openai-compatible`)
    provider = { type: "scripted", script: resolve(io.cwd, values.script) }
  } else if (values.provider === "openai-compatible") {
    if (values.script !== undefined) return fail("--script is for --provider scripted")
    if (!values.prompt) return fail("--provider openai-compatible needs --prompt TEXT")
    if (values.name !== undefined) {
      const extra = inline.find((key) => values[key] !== undefined)
      if (extra) return fail(`--name picks a configured provider; leave out --${extra}`)
      provider = { type: "openai-compatible", name: values.name }
    } else {
      if (!values["base-url"] || !values.model)
        return fail("--provider openai-compatible needs --name CONFIGURED, or --base-url URL and --model MODEL")
      const variable = values["api-key-env"]
      const key = variable === undefined ? undefined : io.env[variable]?.trim()
      provider = {
        type: "openai-compatible",
        base_url: values["base-url"],
        model: values.model,
        // The variable is usually set in the shell that runs this command, not in the app's.
        ...(key ? { api_key: key } : variable !== undefined ? { api_key_env: variable } : {}),
        ...(values.stream ? { stream: true } : {}),
      }
    }
  } else {
    return fail(
      values.provider === undefined
        ? "--provider is required (scripted or openai-compatible)"
        : `Unknown provider ${JSON.stringify(values.provider)}: use scripted or openai-compatible`,
    )
  }
  return {
    input: {
      project: resolve(io.cwd, values.project ?? "."),
      provider,
      ...(values.agent !== undefined ? { agent: values.agent } : {}),
      // Without a prompt to name it, a scripted session is named after its script.
      ...(values.title !== undefined
        ? { title: values.title }
        : !values.prompt && provider.type === "scripted"
          ? { title: basename(provider.script) }
          : {}),
      ...(values.prompt !== undefined ? { prompt: values.prompt } : {}),
    },
    wait: values.wait ?? false,
  }
}

/**
 * Records every pushed event from now on, so a session can be followed from its start even when
 * its first events arrive before the answer that names it.
 */
function recorder(client: Client) {
  const seen: Array<Envelope> = []
  let wake: () => void = () => undefined
  client.onEvent((envelope) => {
    seen.push(envelope)
    wake()
  })
  /** The `index`-th event since recording began, once it has arrived (one reader at a time). */
  const next = (index: number): Promise<Envelope> =>
    index < seen.length
      ? Promise.resolve(seen[index]!)
      : new Promise<void>((resolve) => (wake = resolve)).then(() => next(index))
  return { next }
}

/** Follows a session's events until it reaches a final status; resolves with it. */
async function follow(events: ReturnType<typeof recorder>, client: Client, session: Session, io: Io): Promise<Session> {
  const closed = client.closed.then(() => {
    throw new Error("Gatehouse closed the connection before the session ended")
  })
  let last: SessionStatus = session.status
  for (let index = 0; ; index++) {
    const { event } = await Promise.race([events.next(index), closed])
    if (event._tag === "session.updated" && event.session.id === session.id) {
      const current = event.session
      if (current.status !== last) {
        last = current.status
        io.stdout(`${current.status}${current.reason ? `: ${current.reason}` : ""}`)
      }
      if (FINAL.has(current.status)) return current
    } else if (event._tag === "tool_call.started" && event.call.sessionID === session.id) {
      io.stdout(`  ${event.call.tool} ${preview(JSON.stringify(event.call.input) ?? "")}`)
    } else if (event._tag === "tool_call.finished" && event.call.sessionID === session.id) {
      if (event.call.status !== "completed")
        io.stdout(`  ${event.call.tool} ${event.call.status}: ${preview(event.call.error ?? "")}`)
    }
  }
}

const preview = (text: string) => {
  const line = text.replace(/\s+/g, " ")
  return line.length > 100 ? `${line.slice(0, 99)}…` : line
}

/** `gatehouse run`: starts a session in the running host; with `--wait`, follows it to its end. */
export async function run(argv: ReadonlyArray<string>, io: Io): Promise<number> {
  const args = parseRunArgs(argv, io)
  const host = findHost(io.env)
  const client = await connect(host)
  try {
    // Events are pushed from the moment the socket opened and recorded from before the start, so
    // `--wait` cannot miss the end of a session that ends at once.
    const events = recorder(client)
    const session = await client.call("sessions.start", args.input)
    io.stdout(`Started session ${session.id} (agent ${session.agent}, provider ${session.provider ?? "?"})`)
    io.stdout(`Follow it in Gatehouse: ${host.url}/`)
    if (!args.wait) return 0
    const ended = await follow(events, client, session, io)
    return exitCodeFor(ended.status)
  } finally {
    client.close()
  }
}
