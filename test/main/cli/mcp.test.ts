import { PassThrough } from "node:stream"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { mcpCommands } from "@main/cli/mcp"
import { UsageError } from "@main/cli/io"
import { makeTempDir } from "../../support/temp"
import { startHost, type Host } from "../ingress/support"

const hosts: Array<Host> = []
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()))
})

const streams = { stdin: new PassThrough(), stdout: new PassThrough(), self: ["/usr/bin/node", "/opt/gh/cli.js"] }

const io = (env: NodeJS.ProcessEnv, cwd = "/") => {
  const out: Array<string> = []
  const err: Array<string> = []
  return {
    out,
    err,
    io: { stdout: (line: string) => out.push(line), stderr: (line: string) => err.push(line), env, cwd },
  }
}

describe("gatehouse mcp-config", () => {
  it("prints the running host's endpoint and token for the project", async () => {
    const host = await startHost()
    hosts.push(host)
    const project = makeTempDir()
    const run = io({ GATEHOUSE_DATA_DIR: host.dataDir })
    const code = await mcpCommands(streams)["mcp-config"].run(["--project", project], run.io)
    assert.strictEqual(code, 0)
    const text = run.out.join("\n")
    const url = `${host.url}/mcp?project=${encodeURIComponent(project)}`
    assert.include(
      text,
      `claude mcp add --transport http gatehouse '${url}' --header 'Authorization: Bearer ${host.agentToken}'`,
    )
    assert.include(text, `"url": "${url}"`)
    const stdio = JSON.parse(text.slice(text.lastIndexOf("\n{\n"))) as {
      mcpServers: { gatehouse: { command: string; args: Array<string> } }
    }
    assert.deepStrictEqual(stdio.mcpServers.gatehouse, {
      type: "stdio",
      command: "/usr/bin/node",
      args: ["/opt/gh/cli.js", "mcp", "--project", project],
    } as never)
    assert.deepStrictEqual(run.err, [])
  })

  it("defaults the project to the working directory and says when Gatehouse is not running", async () => {
    const dataDir = makeTempDir()
    const run = io({ GATEHOUSE_DATA_DIR: dataDir }, "/srv/app")
    const code = await mcpCommands(streams)["mcp-config"].run([], run.io)
    assert.strictEqual(code, 0)
    assert.include(run.out.join("\n"), "http://127.0.0.1:7317/mcp?project=%2Fsrv%2Fapp")
    assert.include(run.out.join("\n"), "Bearer <agent token>")
    assert.match(run.err.join("\n"), /Gatehouse is not running/)
  })
})

describe("gatehouse mcp", () => {
  it("requires --project and refuses unknown options", async () => {
    const run = io({ GATEHOUSE_DATA_DIR: makeTempDir() })
    const missing = await mcpCommands(streams)
      .mcp.run([], run.io)
      .then(
        () => assert.fail("ran without --project"),
        (error: unknown) => error,
      )
    assert.instanceOf(missing, UsageError)
    const unknown = await mcpCommands(streams)
      .mcp.run(["--project", "/x", "--port", "1"], run.io)
      .then(
        () => assert.fail("accepted --port"),
        (error: unknown) => error,
      )
    assert.instanceOf(unknown, UsageError)
  })

  it("exits 1 with the reason when Gatehouse is not running", async () => {
    const run = io({ GATEHOUSE_DATA_DIR: makeTempDir() })
    assert.strictEqual(await mcpCommands(streams).mcp.run(["--project", "/x"], run.io), 1)
    assert.match(run.err.join("\n"), /^gatehouse mcp: Gatehouse is not running/)
  })
})
