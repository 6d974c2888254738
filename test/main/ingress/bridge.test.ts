import { execFile, spawn } from "node:child_process"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterEach, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { Sessions } from "@core/session/Sessions"
import { DISCONNECTED } from "@main/ingress/McpIngress"
import { bundleForChild } from "../../support/child"
import { makeTempDir } from "../../support/temp"
import { bashAsks, nextAsk, nextEvent, startHost, supervisor, textOf, type Host } from "./support"

// `gatehouse mcp` as a real child process, spoken to by the SDK's stdio client, forwarding to a
// real headless host that it finds through server.json and the agent token file.

let cli = ""
beforeAll(async () => {
  cli = await bundleForChild("gatehouse-cli", `import ${JSON.stringify(join(process.cwd(), "src-main/cli/main.ts"))}`)
})

const hosts: Array<Host> = []
const clients: Array<Client> = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
  await Promise.all(hosts.splice(0).map((host) => host.close()))
})

const start = async (options: Parameters<typeof startHost>[0] = {}) => {
  const host = await startHost(options)
  hosts.push(host)
  return host
}

const environment = (dataDir: string): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: process.env.HOME ?? "/tmp",
  GATEHOUSE_DATA_DIR: dataDir,
})

/** The SDK's stdio client running `gatehouse mcp --project …` against the host's data directory. */
const bridgeClient = async (host: Host, project: string, stderr: Array<string> = []) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, "mcp", "--project", project],
    env: environment(host.dataDir),
    stderr: "pipe",
  })
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")))
  const client = new Client({ name: "stdio-client", version: "9.9.9" })
  clients.push(client)
  await client.connect(transport)
  return client
}

const sessionsOf = (host: Host) => host.run(Effect.flatMap(Sessions.Service, (sessions) => sessions.list()))

describe("gatehouse mcp (stdio bridge)", () => {
  it("serves the running host's catalog over stdio and reads a file through it", async () => {
    const host = await start()
    const project = makeTempDir()
    writeFileSync(join(project, "README.md"), "# through the bridge\n")
    const client = await bridgeClient(host, project)
    const { tools } = await client.listTools()
    assert.include(
      tools.map((tool) => tool.name),
      "read",
    )
    assert.isTrue(tools.find((tool) => tool.name === "read")!.annotations?.readOnlyHint)
    const result = await client.callTool({ name: "read", arguments: { path: "README.md" } })
    assert.include(textOf(result), "through the bridge")
    const [session] = await sessionsOf(host)
    assert.strictEqual(session!.source, "mcp:stdio-client")
    assert.strictEqual(session!.title, "stdio-client 9.9.9")
  })

  it("carries a call that waits for the person until the supervisor approves it", async () => {
    const host = await start({ config: bashAsks })
    const socket = await supervisor(host)
    const client = await bridgeClient(host, makeTempDir())
    const call = client.callTool({ name: "bash", arguments: { command: "echo via-bridge", description: "echo" } })
    const ask = await nextAsk(socket)
    const answer = await socket.request("permission.reply", { requestID: ask.id, reply: "once" })
    assert.strictEqual(answer.exit._tag, "Success")
    assert.include(textOf(await call), "via-bridge")
    socket.ws.close()
  })

  it("ends the MCP session when the client closes the bridge, withdrawing the ask still waiting", async () => {
    const host = await start({ config: bashAsks })
    const socket = await supervisor(host)
    const client = await bridgeClient(host, makeTempDir())
    const call = client.callTool({ name: "bash", arguments: { command: "echo never", description: "echo" } })
    const ask = await nextAsk(socket)
    await client.close()
    await call.catch(() => undefined)
    await nextEvent(socket, (event) => event._tag === "permission.v2.withdrawn" && event.requestID === ask.id)
    await nextEvent(
      socket,
      (event) => event._tag === "session.updated" && (event.session as { reason?: string }).reason === DISCONNECTED,
    )
    socket.ws.close()
  })

  it("keeps the order of messages a client sends without waiting for answers", async () => {
    const host = await start()
    const child = spawn(process.execPath, [cli, "mcp", "--project", makeTempDir()], { env: environment(host.dataDir) })
    let out = ""
    const listed = new Promise<void>((resolve) =>
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8")
        if (out.includes('"id":1,')) resolve()
      }),
    )
    const lines = [
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pipelined", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
    ]
    child.stdin.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(""))
    await listed
    const answers = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: number; result?: { tools?: Array<{ name: string }> } })
    const list = answers.find((answer) => answer.id === 1)!
    assert.include(
      list.result!.tools!.map((tool) => tool.name),
      "read",
    )
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
    child.stdin.end()
    assert.strictEqual(await exited, 0)
  })

  it("passes Gatehouse's refusal of a project on as the initialize error", async () => {
    const host = await start()
    const missing = join(makeTempDir(), "missing")
    const error = await bridgeClient(host, missing).then(
      () => assert.fail("initialized for a missing project"),
      (error: unknown) => error as Error,
    )
    assert.include(error.message, `Cannot use ${missing} as a project: it does not exist`)
  })

  it("fails with a clear message when neither the app nor the headless host runs", async () => {
    const dataDir = makeTempDir()
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [cli, "mcp", "--project", dataDir],
        { env: environment(dataDir) },
        (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr }),
      ),
    )
    assert.strictEqual(code, 1)
    assert.include(stderr, "Gatehouse is not running")
    assert.include(stderr, join(dataDir, "server.json").replace("/server.json", ""))
  })
})
