import { ConnectionError } from "./client"
import { NotRunningError } from "./host"
import { UsageError, type Io } from "./io"
import { mcpCommands } from "./mcp"
import { run, runUsage } from "./run"

// The `gatehouse` command's sub-commands. Each one parses its own arguments, talks to the running
// app through the contract, and returns its exit code. Later features add theirs here (MCP ingress:
// `mcp` for the stdio bridge, `mcp-config` for client configuration).

export interface Command {
  /** One line for the overview. */
  readonly summary: string
  readonly usage: string
  readonly run: (argv: ReadonlyArray<string>, io: Io) => Promise<number>
}

export const commands: Readonly<Record<string, Command>> = {
  run: { summary: "start a session with the built-in runner", usage: runUsage, run },
  ...mcpCommands(),
}

export const usage = () =>
  [
    "Usage: gatehouse <command> [options]",
    "",
    "Commands:",
    ...Object.entries(commands).map(([name, command]) => `  ${name.padEnd(12)}${command.summary}`),
    "",
    "Run `gatehouse <command> --help` for a command's options. `npm start` or `npm run serve` starts Gatehouse.",
  ].join("\n")

/** Runs the command line; resolves with the exit code (0 ok, 1 failure, 2 usage). */
export async function runCli(argv: ReadonlyArray<string>, io: Io): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout(usage())
    return name === undefined ? 2 : 0
  }
  const command = commands[name]
  if (!command) {
    io.stderr(`Unknown command ${JSON.stringify(name)}.\n\n${usage()}`)
    return 2
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(command.usage)
    return 0
  }
  try {
    return await command.run(rest, io)
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(error.message)
      return 2
    }
    if (error instanceof NotRunningError || error instanceof ConnectionError) {
      io.stderr(error.message)
      return 1
    }
    io.stderr(`gatehouse ${name}: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  }
}
