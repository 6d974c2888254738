import { resolve } from "node:path"
import type { Readable, Writable } from "node:stream"
import { parseArgs } from "node:util"
import { runBridge } from "@main/ingress/bridge"
import { clientConfigText, endpointOf } from "@main/ingress/clientConfig"
import { candidateDataDirs, findRunning, readAgentToken } from "@main/ingress/discovery"
import { defaultPort } from "@main/ingress/endpoint"
import type { Command } from "./commands"
import { UsageError } from "./io"

// The MCP commands of `gatehouse`: `mcp` (the stdio bridge to the running app's `/mcp`) and
// `mcp-config` (ready-to-paste client configuration).

export const mcpUsage = `Usage: gatehouse mcp --project DIR [--agent NAME]

A stdio MCP server for clients that start their servers as processes: it forwards every message to
the running Gatehouse (the app or the headless host, found through server.json in its data
directory) and reads the agent token itself. DIR is the project the session works in; NAME the
agent whose rules apply (default build).`

export const mcpConfigUsage = `Usage: gatehouse mcp-config [--project DIR] [--agent NAME]

Prints configuration for Claude Code, Cursor and any client that reads an mcpServers JSON, for the
project DIR (default: the current directory). The HTTP variants carry the agent token: keep them private.`

/** The headless host's and the app's address unless config.jsonc's `server.port` says otherwise. */
const defaultUrl = `http://127.0.0.1:${defaultPort}`

/** What the bridge needs of its process beyond {@link Io}: the protocol's own stdio. */
export interface Streams {
  readonly stdin: Readable
  readonly stdout: Writable
  /** How to start `gatehouse` again (for the stdio snippet): node and this script. */
  readonly self: ReadonlyArray<string>
}

const processStreams = (): Streams => ({
  stdin: process.stdin,
  stdout: process.stdout,
  self: [process.execPath, resolve(process.argv[1] ?? "gatehouse")],
})

function parse(argv: ReadonlyArray<string>, usage: string) {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: { project: { type: "string" }, agent: { type: "string" } },
      strict: true,
      allowPositionals: false,
    })
    return values
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`)
  }
}

/**
 * `gatehouse mcp` and `gatehouse mcp-config`, over the given streams (by default the process's,
 * taken only when a command runs: merely loading the command table must not touch stdin).
 */
export const mcpCommands = (given?: Streams): Readonly<Record<"mcp" | "mcp-config", Command>> => ({
  mcp: {
    summary: "serve MCP over stdio, forwarding to the running Gatehouse",
    usage: mcpUsage,
    run: async (argv, io) => {
      const args = parse(argv, mcpUsage)
      if (!args.project) throw new UsageError(`Missing --project DIR\n\n${mcpUsage}`)
      const found = await findRunning({ env: io.env })
      if (found._tag === "notRunning") {
        io.stderr(`gatehouse mcp: ${found.message}`)
        return 1
      }
      const streams = given ?? processStreams()
      await runBridge({
        endpoint: new URL(
          endpointOf({ url: found.running.url, project: resolve(io.cwd, args.project), agent: args.agent }),
        ),
        agentToken: found.running.agentToken,
        stdin: streams.stdin,
        stdout: streams.stdout,
        log: (line) => io.stderr(`gatehouse mcp: ${line}`),
      })
      return 0
    },
  },
  "mcp-config": {
    summary: "print MCP client configuration (Claude Code, Cursor, mcpServers)",
    usage: mcpConfigUsage,
    run: async (argv, io) => {
      const args = parse(argv, mcpConfigUsage)
      const project = resolve(io.cwd, args.project ?? ".")
      const found = await findRunning({ env: io.env })
      let url = defaultUrl
      let agentToken: string | undefined
      if (found._tag === "running") {
        url = found.running.url
        agentToken = found.running.agentToken
      } else {
        // The app's token when only the app ever ran, the headless host's when both did.
        agentToken = candidateDataDirs({ env: io.env })
          .map(readAgentToken)
          .find((token) => token !== undefined)
        io.stderr(`Gatehouse is not running: assuming ${url} (server.port in config.jsonc changes the port).`)
        if (!agentToken) io.stderr("There is no agent token yet: start Gatehouse once, then run this again.")
      }
      const command = (given ?? processStreams()).self
      io.stdout(clientConfigText({ url, agentToken, project, agent: args.agent, command }))
      return 0
    },
  },
})
