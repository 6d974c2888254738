import { path as mcpPath } from "./endpoint"

// `gatehouse mcp-config`: ready-to-paste configuration for the MCP clients people use. Pure: the
// command supplies where Gatehouse runs, the token, the project and how to start the bridge.

export interface ClientConfigInput {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** The agent token; `undefined` prints a placeholder. */
  readonly agentToken: string | undefined
  /** Absolute project directory. */
  readonly project: string
  /** Omitted from the URL when it is the default (`build`). */
  readonly agent?: string | undefined
  /** How to run `gatehouse` itself, for the stdio variant: the program and its leading arguments. */
  readonly command: ReadonlyArray<string>
}

export const serverName = "gatehouse"
export const tokenPlaceholder = "<agent token>"

/** The agent to name, when it is not the default one (`build`, Agents.DEFAULT_AGENT). */
const namedAgent = (agent: string | undefined) => (agent && agent !== "build" ? agent : undefined)

/** The endpoint for a project (and agent). */
export function endpointOf(input: Pick<ClientConfigInput, "url" | "project" | "agent">): string {
  const url = new URL(`${input.url}${mcpPath}`)
  url.searchParams.set("project", input.project)
  const agent = namedAgent(input.agent)
  if (agent) url.searchParams.set("agent", agent)
  return url.toString()
}

/** POSIX single quoting: safe for any path or URL. */
export const shellQuote = (value: string) =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`

const json = (value: unknown) => JSON.stringify(value, null, 2)

/** The snippets, keyed by client, each ready to paste as it is. */
export function clientConfigs(input: ClientConfigInput) {
  const url = endpointOf(input)
  const authorization = `Bearer ${input.agentToken ?? tokenPlaceholder}`
  const [program, ...leading] = input.command
  const agent = namedAgent(input.agent)
  const stdioArgs = [...leading, "mcp", "--project", input.project, ...(agent ? ["--agent", agent] : [])]
  return {
    url,
    claudeCode: `claude mcp add --transport http ${serverName} ${shellQuote(url)} --header ${shellQuote(`Authorization: ${authorization}`)}`,
    cursor: json({ mcpServers: { [serverName]: { url, headers: { Authorization: authorization } } } }),
    http: json({ mcpServers: { [serverName]: { type: "http", url, headers: { Authorization: authorization } } } }),
    stdio: json({ mcpServers: { [serverName]: { type: "stdio", command: program, args: stdioArgs } } }),
  }
}

/** The whole text `gatehouse mcp-config` prints. */
export function clientConfigText(input: ClientConfigInput): string {
  const configs = clientConfigs(input)
  const agent = namedAgent(input.agent)
  return [
    `# Gatehouse MCP endpoint for ${input.project}${agent ? ` (agent ${agent})` : ""}`,
    `# ${configs.url}`,
    "# The Authorization header carries the agent token: it can run tools in this project, keep it private.",
    "",
    "## Claude Code",
    configs.claudeCode,
    "",
    "## Cursor (.cursor/mcp.json in the project)",
    configs.cursor,
    "",
    "## Any MCP client (mcpServers), over HTTP",
    configs.http,
    "",
    "## Any MCP client (mcpServers), over stdio through `gatehouse mcp` (reads the token itself)",
    configs.stdio,
  ].join("\n")
}
