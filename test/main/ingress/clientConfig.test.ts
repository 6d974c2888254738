import { assert, describe, it } from "@effect/vitest"
import { clientConfigText, clientConfigs, endpointOf, shellQuote, tokenPlaceholder } from "@main/ingress/clientConfig"

const token = "a".repeat(64)
const input = {
  url: "http://127.0.0.1:7317",
  agentToken: token,
  project: "/home/me/my project",
  command: ["/usr/bin/node", "/opt/gatehouse/out/main/cli.js"],
}

describe("clientConfig", () => {
  it("puts the project (and a non-default agent) into the endpoint's query", () => {
    assert.strictEqual(endpointOf(input), "http://127.0.0.1:7317/mcp?project=%2Fhome%2Fme%2Fmy+project")
    assert.strictEqual(
      endpointOf({ ...input, agent: "plan" }),
      "http://127.0.0.1:7317/mcp?project=%2Fhome%2Fme%2Fmy+project&agent=plan",
    )
    assert.strictEqual(endpointOf({ ...input, agent: "build" }), endpointOf(input))
  })

  it("prints a claude mcp add command that a POSIX shell reads back unchanged", () => {
    const { claudeCode } = clientConfigs(input)
    assert.strictEqual(
      claudeCode,
      `claude mcp add --transport http gatehouse 'http://127.0.0.1:7317/mcp?project=%2Fhome%2Fme%2Fmy+project' --header 'Authorization: Bearer ${token}'`,
    )
    assert.strictEqual(shellQuote("it's"), `'it'\\''s'`)
  })

  it("prints Cursor, HTTP and stdio mcpServers entries as JSON", () => {
    const configs = clientConfigs({ ...input, agent: "plan" })
    const url = endpointOf({ ...input, agent: "plan" })
    assert.deepStrictEqual(JSON.parse(configs.cursor), {
      mcpServers: { gatehouse: { url, headers: { Authorization: `Bearer ${token}` } } },
    })
    assert.deepStrictEqual(JSON.parse(configs.http), {
      mcpServers: { gatehouse: { type: "http", url, headers: { Authorization: `Bearer ${token}` } } },
    })
    // The stdio variant carries no secret: the bridge reads the token file itself.
    assert.deepStrictEqual(JSON.parse(configs.stdio), {
      mcpServers: {
        gatehouse: {
          type: "stdio",
          command: "/usr/bin/node",
          args: ["/opt/gatehouse/out/main/cli.js", "mcp", "--project", "/home/me/my project", "--agent", "plan"],
        },
      },
    })
    assert.notInclude(configs.stdio, token)
  })

  it("uses a placeholder when there is no token yet", () => {
    const text = clientConfigText({ ...input, agentToken: undefined })
    assert.include(text, `Bearer ${tokenPlaceholder}`)
    assert.include(text, "## Claude Code")
    assert.include(text, "## Cursor (.cursor/mcp.json in the project)")
  })
})
