import { join } from "node:path"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Sessions } from "@core/session/Sessions"
import { makeTempDir } from "../../support/temp"
import { send, upgrade } from "../web/http"
import { connectClient, initializeBody, mcpHeaders, mcpUrl, post, startHost, type Host } from "./support"

// The door of `/mcp` (RELIABILITY.md §3, checks 31–35): only the agent token, only loopback Host
// and own-or-absent Origin, JSON POSTs only, and the transport rules of the MCP specification for
// session ids and protocol versions. Every refusal happens before a session exists.

const hosts: Array<Host> = []
const start = async () => {
  const host = await startHost()
  hosts.push(host)
  return host
}
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()))
})

const projectPath = (project: string) => `/mcp?project=${encodeURIComponent(project)}`
const sessionCount = async (host: Host) =>
  (await host.run(Effect.flatMap(Sessions.Service, (sessions) => sessions.list()))).length

const errorOf = (body: string) => JSON.parse(body) as { error: { code: number; message: string }; id: unknown }

/** Initializes a raw session and returns its id. */
const initialize = async (host: Host, project: string) => {
  const response = await post(host.port, {
    path: projectPath(project),
    headers: mcpHeaders(host.agentToken),
    body: initializeBody(),
  })
  assert.strictEqual(response.status, 200)
  return response.headers["mcp-session-id"] as string
}

const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} })

describe("McpIngress security", () => {
  it("admits the agent token only: a missing, wrong, truncated or supervisor token gets 401", async () => {
    const host = await start()
    const path = projectPath(makeTempDir())
    for (const token of [undefined, "0".repeat(64), host.agentToken.slice(0, 63), host.supervisorToken]) {
      const response = await post(host.port, { path, headers: mcpHeaders(token), body: initializeBody() })
      assert.strictEqual(response.status, 401, String(token))
      assert.strictEqual(response.headers["www-authenticate"], "Bearer")
    }
    const lowercase = await post(host.port, {
      path,
      headers: mcpHeaders(undefined, { authorization: `bearer ${host.agentToken.toUpperCase()}` }),
      body: initializeBody(),
    })
    assert.strictEqual(lowercase.status, 401)
    assert.strictEqual(await sessionCount(host), 0)
    const admitted = await post(host.port, { path, headers: mcpHeaders(host.agentToken), body: initializeBody() })
    assert.strictEqual(admitted.status, 200)
    assert.strictEqual(await sessionCount(host), 1)
  })

  it("refuses the agent token at the supervisor's contract socket", async () => {
    const host = await start()
    const refused = await upgrade(host.port, {
      headers: { "sec-websocket-protocol": `gatehouse, bearer.${host.agentToken}` },
    })
    assert.strictEqual(refused.status, 401)
  })

  it("refuses an SDK client that presents the supervisor token", async () => {
    const host = await start()
    const error = await connectClient(host, { project: makeTempDir(), token: host.supervisorToken }).then(
      () => assert.fail("connected with the supervisor token"),
      (error: unknown) => error as Error,
    )
    assert.match(error.message, /401|Unauthorized/)
  })

  it("refuses foreign Host and Origin headers with 403 and creates nothing", async () => {
    const host = await start()
    const path = projectPath(makeTempDir())
    const hostile: Array<Record<string, string | undefined>> = [
      { host: "evil.example" },
      { host: "localhost.evil.example" },
      { host: `127.0.0.1.nip.io:${host.port}` },
      { host: `0.0.0.0:${host.port}` },
      { host: `127.0.0.1:${host.port + 1}` },
      { host: undefined },
      { origin: "http://evil.example" },
      { origin: "null" },
      { origin: `http://localhost:${host.port + 1}` },
    ]
    for (const headers of hostile) {
      const response = await post(host.port, {
        path,
        headers: mcpHeaders(host.agentToken, headers),
        body: initializeBody(),
      })
      assert.strictEqual(response.status, 403, JSON.stringify(headers))
    }
    assert.strictEqual(await sessionCount(host), 0)
    for (const allowed of [`localhost:${host.port}`, `[::1]:${host.port}`]) {
      const response = await post(host.port, {
        path,
        headers: mcpHeaders(host.agentToken, { host: allowed, origin: `http://${allowed}` }),
        body: initializeBody(),
      })
      assert.strictEqual(response.status, 200, allowed)
    }
  })

  it("answers an unknown session id with 404 on POST, GET and DELETE", async () => {
    const host = await start()
    const unknown = "3f0c2f5e-1d6b-4b43-9d1e-2d6c1b7a9e10"
    const response = await post(host.port, {
      headers: mcpHeaders(host.agentToken, { "mcp-session-id": unknown }),
      body: toolsList,
    })
    assert.strictEqual(response.status, 404)
    assert.strictEqual(errorOf(response.body).error.code, -32001)
    for (const method of ["GET", "DELETE"]) {
      const other = await send(host.port, {
        method,
        path: "/mcp",
        headers: { authorization: `Bearer ${host.agentToken}`, accept: "text/event-stream", "mcp-session-id": unknown },
      })
      assert.strictEqual(other.status, 404, method)
    }
  })

  it("never takes a session id for authentication: every request needs the agent token", async () => {
    const host = await start()
    const sessionId = await initialize(host, makeTempDir())
    for (const token of [undefined, host.supervisorToken]) {
      const response = await post(host.port, {
        headers: mcpHeaders(token, { "mcp-session-id": sessionId }),
        body: toolsList,
      })
      assert.strictEqual(response.status, 401)
    }
  })

  it("answers an unsupported MCP-Protocol-Version with 400", async () => {
    const host = await start()
    const sessionId = await initialize(host, makeTempDir())
    const response = await post(host.port, {
      headers: mcpHeaders(host.agentToken, { "mcp-session-id": sessionId, "mcp-protocol-version": "1999-01-01" }),
      body: toolsList,
    })
    assert.strictEqual(response.status, 400)
    assert.match(errorOf(response.body).error.message, /Unsupported protocol version: 1999-01-01/)
    const supported = await post(host.port, {
      headers: mcpHeaders(host.agentToken, { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" }),
      body: toolsList,
    })
    assert.strictEqual(supported.status, 200)
    assert.include(supported.body, '"name":"read"')
  })

  it("gives each session a fresh random id of visible ASCII and requires it after initialization", async () => {
    const host = await start()
    const project = makeTempDir()
    const first = await initialize(host, project)
    const second = await initialize(host, project)
    assert.notStrictEqual(first, second)
    for (const id of [first, second])
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    const without = await post(host.port, { headers: mcpHeaders(host.agentToken), body: toolsList })
    assert.strictEqual(without.status, 400)
    assert.match(errorOf(without.body).error.message, /Mcp-Session-Id header is required/)
  })

  it("refuses form and text/plain POSTs unread, and other methods with 405", async () => {
    const host = await start()
    const path = projectPath(makeTempDir())
    for (const type of [
      "application/x-www-form-urlencoded",
      "text/plain",
      "multipart/form-data; boundary=x",
      "application/jsonx",
    ]) {
      const response = await post(host.port, {
        path,
        headers: mcpHeaders(host.agentToken, { "content-type": type }),
        body: initializeBody(),
      })
      assert.strictEqual(response.status, 415, type)
    }
    assert.strictEqual(await sessionCount(host), 0)
    const put = await send(host.port, { method: "PUT", path, headers: { authorization: `Bearer ${host.agentToken}` } })
    assert.strictEqual(put.status, 405)
    assert.strictEqual(put.headers.allow, "GET, POST, DELETE")
  })

  it("refuses at initialization a missing, relative or non-existent project and an unknown agent, naming the problem", async () => {
    const host = await start()
    const missing = join(makeTempDir(), "gone")
    const cases: Array<readonly [string, RegExp]> = [
      ["/mcp", /Missing project/],
      [`/mcp?project=${encodeURIComponent("some/dir")}`, /must be absolute: some\/dir/],
      [projectPath(missing), new RegExp(`Cannot use ${missing} as a project: it does not exist`)],
      [`${projectPath(makeTempDir())}&agent=nobody`, /Unknown agent: nobody \(agents: build, plan/],
    ]
    for (const [path, pattern] of cases) {
      const response = await post(host.port, { path, headers: mcpHeaders(host.agentToken), body: initializeBody(7) })
      assert.strictEqual(response.status, 400, path)
      const body = errorOf(response.body)
      assert.strictEqual(body.id, 7)
      assert.strictEqual(body.error.code, -32602)
      assert.match(body.error.message, pattern)
    }
    assert.strictEqual(await sessionCount(host), 0)
    const error = await connectClient(host, { project: missing }).then(
      () => assert.fail("connected to a missing project"),
      (error: unknown) => error as Error,
    )
    assert.include(error.message, "it does not exist")
  })

  it("serves only /mcp itself, not paths below it", async () => {
    const host = await start()
    const url = mcpUrl(host, { project: makeTempDir() })
    const response = await post(host.port, {
      path: `/mcp/other${url.search}`,
      headers: mcpHeaders(host.agentToken),
      body: initializeBody(),
    })
    assert.strictEqual(response.status, 404)
  })
})
