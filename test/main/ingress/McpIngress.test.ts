import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect } from "effect"
import type { SessionId } from "@contract/ids"
import type { PermissionRequest } from "@contract/model"
import { Locations } from "@core/location/Locations"
import { Runner } from "@core/session/Runner"
import { Sessions } from "@core/session/Sessions"
import { ToolCalls } from "@core/session/ToolCalls"
import { DISCONNECTED, McpIngress, RESTARTED } from "@main/ingress/McpIngress"
import { STOPPED_TEXT, outputPathsKey } from "@main/ingress/results"
import { makeTempDir } from "../../support/temp"
import { bashAsks, connectClient, nextAsk, nextEvent, startHost, supervisor, textOf, type Host } from "./support"

// The MCP endpoint end to end: the real headless host on loopback, real SDK clients over HTTP, the
// supervisor answering through the same contract socket the UI uses.

const hosts: Array<Host> = []
const start = async (options: Parameters<typeof startHost>[0] = {}) => {
  const host = await startHost(options)
  hosts.push(host)
  return host
}
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()))
})

const sessionsOf = (host: Host) => host.run(Effect.flatMap(Sessions.Service, (sessions) => sessions.list()))
const sessionOf = async (host: Host, sessionID: SessionId) =>
  host.run(Effect.flatMap(Sessions.Service, (sessions) => sessions.get(sessionID)))
const callsOf = (host: Host, sessionID: SessionId) =>
  host.run(Effect.flatMap(ToolCalls.Service, (calls) => calls.forSession(sessionID)))
const pending = (host: Host) => host.run(Effect.map(Locations.Service, (locations) => locations.pendingUnsafe()))
const live = (host: Host) => host.run(Effect.map(McpIngress.Service, (ingress) => ingress.liveUnsafe()))

/** The one session bound to a live MCP session now. */
const onlySession = async (host: Host) => {
  const [first, ...rest] = await live(host)
  assert.isDefined(first)
  assert.lengthOf(rest, 0)
  return first!.sessionID
}

const reply = async (host: Host, request: PermissionRequest, reply: "once" | "reject", message?: string) => {
  const socket = await supervisor(host)
  const answer = await socket.request("permission.reply", {
    requestID: request.id,
    reply,
    ...(message ? { message } : {}),
  })
  socket.ws.close()
  assert.strictEqual(answer.exit._tag, "Success")
}

describe("McpIngress", () => {
  it("lists the agent's catalog with descriptions, input schemas and risk annotations", async () => {
    const host = await start()
    const { client } = await connectClient(host, { project: makeTempDir() })
    const { tools } = await client.listTools()
    assert.deepStrictEqual(
      tools.map((tool) => tool.name),
      [
        "read",
        "write",
        "edit",
        "apply_patch",
        "bash",
        "glob",
        "grep",
        "webfetch",
        "websearch",
        "skill",
        "todowrite",
        "question",
      ],
    )
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    for (const name of ["read", "glob", "grep"]) assert.isTrue(byName.get(name)!.annotations?.readOnlyHint, name)
    for (const name of ["write", "edit", "apply_patch", "bash"]) {
      assert.isTrue(byName.get(name)!.annotations?.destructiveHint, name)
      assert.isFalse(byName.get(name)!.annotations?.readOnlyHint, name)
    }
    assert.strictEqual(byName.get("read")!.inputSchema.type, "object")
    assert.property(byName.get("read")!.inputSchema.properties ?? {}, "path")
    assert.include(byName.get("bash")!.description ?? "", "not sandboxed")
    await client.close()
  })

  it("serves the named agent's catalog: explore sees only its read-only tools", async () => {
    const host = await start()
    const { client } = await connectClient(host, { project: makeTempDir(), agent: "explore" })
    const { tools } = await client.listTools()
    assert.deepStrictEqual(
      tools.map((tool) => tool.name),
      ["read", "glob", "grep", "webfetch", "websearch"],
    )
    const refused = await client.callTool({ name: "write", arguments: { path: "x.txt", content: "x" } })
    assert.isTrue(refused.isError)
    assert.strictEqual(textOf(refused), "Unknown tool: write")
    await client.close()
  })

  it("binds each MCP session to a new idle Gatehouse session named after the client, in the project's Location", async () => {
    const host = await start()
    const project = makeTempDir()
    const { client } = await connectClient(host, { project, name: "claude-code" })
    const [session] = await sessionsOf(host)
    assert.strictEqual(session!.source, "mcp:claude-code")
    assert.strictEqual(session!.title, "claude-code 1.2.3")
    assert.strictEqual(session!.agent, "build")
    assert.strictEqual(session!.status, "idle")
    const projects = await host.run(
      Effect.map(Locations.Service, (locations) => locations.liveUnsafe().map((handle) => handle.project.directory)),
    )
    assert.deepStrictEqual(projects, [project])
    await client.close()
  })

  it("keeps the session in history as stopped once the client ends its MCP session", async () => {
    const host = await start()
    const { client, transport } = await connectClient(host, { project: makeTempDir() })
    const sessionID = await onlySession(host)
    await transport.terminateSession()
    await client.close()
    const session = await sessionOf(host, sessionID)
    assert.strictEqual(session.status, "stopped")
    assert.strictEqual(session.reason, DISCONNECTED)
    assert.lengthOf(await live(host), 0)
  })

  it("ends the session when the client goes away without a goodbye", async () => {
    const host = await start({ mcp: { disconnectGrace: "20 millis" } })
    const socket = await supervisor(host)
    const { client } = await connectClient(host, { project: makeTempDir() })
    const sessionID = await onlySession(host)
    await client.close()
    await nextEvent(
      socket,
      (event) =>
        event._tag === "session.updated" &&
        (event.session as { id: string; status: string }).id === sessionID &&
        (event.session as { status: string }).status === "stopped",
    )
    assert.strictEqual((await sessionOf(host, sessionID)).reason, DISCONNECTED)
    socket.ws.close()
  })

  it("calls an allowed read and records the call under the MCP request id", async () => {
    const host = await start()
    const project = makeTempDir()
    writeFileSync(join(project, "notes.txt"), "first line\nsecond line\n")
    const { client } = await connectClient(host, { project })
    const result = await client.callTool({ name: "read", arguments: { path: "notes.txt" } })
    assert.isNotTrue(result.isError)
    assert.include(textOf(result), "second line")
    const sessionID = await onlySession(host)
    const [call] = await callsOf(host, sessionID)
    assert.strictEqual(call!.tool, "read")
    assert.strictEqual(call!.status, "completed")
    assert.strictEqual(call!.messageID, `mcp_${sessionID}`)
    // initialize is request 0 and tools/call request 1: the call id is the request's.
    assert.strictEqual(call!.callID, "1")
    assert.deepStrictEqual(call!.input, { path: "notes.txt" })
    assert.strictEqual((await sessionOf(host, sessionID)).status, "idle")
    await client.close()
  })

  it("stays running through calls in quick succession and shows idle after a pause", async () => {
    const host = await start({ mcp: { idleAfter: "150 millis" } })
    const socket = await supervisor(host)
    const { client } = await connectClient(host, { project: makeTempDir() })
    const sessionID = await onlySession(host)
    for (let call = 0; call < 3; call++) await client.callTool({ name: "glob", arguments: { pattern: "*" } })
    assert.strictEqual((await sessionOf(host, sessionID)).status, "running")
    await nextEvent(
      socket,
      (event) => event._tag === "session.updated" && (event.session as { status: string }).status === "idle",
    )
    const statuses = socket.messages
      .flatMap((message) => (message.type === "events" ? message.batch.events : []))
      .map((envelope) => envelope.event as { _tag: string; session?: { id: string; status: string } })
      .filter((event) => event._tag === "session.updated" && event.session!.id === sessionID)
      .map((event) => event.session!.status)
    assert.deepStrictEqual(statuses, ["running", "idle"])
    socket.ws.close()
    await client.close()
  })

  it("returns a tool failure as an error result", async () => {
    const host = await start()
    const { client } = await connectClient(host, { project: makeTempDir() })
    const result = await client.callTool({ name: "read", arguments: { path: "missing.txt" } })
    assert.isTrue(result.isError)
    assert.match(textOf(result), /missing\.txt/)
    const invalid = await client.callTool({ name: "read", arguments: { nope: 1 } })
    assert.isTrue(invalid.isError)
    assert.match(textOf(invalid), /^Invalid tool input/)
    await client.close()
  })

  it("bounds an oversized output and names the file holding all of it", async () => {
    const host = await start()
    const { client } = await connectClient(host, { project: makeTempDir() })
    const result = await client.callTool({ name: "bash", arguments: { command: "seq 1 5000", description: "count" } })
    assert.isNotTrue(result.isError)
    const text = textOf(result)
    const paths = (result._meta as Record<string, ReadonlyArray<string>>)[outputPathsKey]!
    assert.lengthOf(paths, 1)
    assert.include(text, `... output truncated; full content saved to ${paths[0]} ...`)
    assert.isTrue(existsSync(paths[0]!))
    assert.isBelow(text.split("\n").length, 2100)
    await client.close()
  })

  it("returns an image as image content with its base64 data and mime type", async () => {
    const host = await start()
    const project = makeTempDir()
    // A 1×1 PNG.
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    )
    writeFileSync(join(project, "dot.png"), png)
    const { client } = await connectClient(host, { project })
    const result = await client.callTool({ name: "read", arguments: { path: "dot.png" } })
    assert.isNotTrue(result.isError)
    const image = (result.content as Array<{ type: string; data?: string; mimeType?: string }>).find(
      (part) => part.type === "image",
    )
    assert.isDefined(image)
    assert.strictEqual(image!.mimeType, "image/png")
    assert.isAbove(Buffer.from(image!.data!, "base64").length, 0)
    await client.close()
  })

  it("holds a bash call that asks in the inbox, blocked, until the supervisor approves it", async () => {
    const host = await start({ config: bashAsks })
    const socket = await supervisor(host)
    const { client } = await connectClient(host, { project: makeTempDir() })
    const sessionID = await onlySession(host)
    const call = client.callTool({ name: "bash", arguments: { command: "echo approved-run", description: "echo" } })
    const ask = await nextAsk(socket, (request) => request.sessionID === sessionID)
    assert.strictEqual(ask.action, "bash")
    assert.deepStrictEqual(ask.resources, ["echo approved-run"])
    assert.deepStrictEqual(ask.source, { type: "tool", messageID: `mcp_${sessionID}`, callID: "1" })
    await nextEvent(
      socket,
      (event) => event._tag === "session.updated" && (event.session as { status: string }).status === "blocked",
    )
    const answer = await socket.request("permission.reply", { requestID: ask.id, reply: "once" })
    assert.strictEqual(answer.exit._tag, "Success")
    const result = await call
    assert.isNotTrue(result.isError)
    assert.include(textOf(result), "approved-run")
    const [recorded] = await callsOf(host, sessionID)
    assert.strictEqual(recorded!.status, "completed")
    assert.strictEqual((await sessionOf(host, sessionID)).status, "idle")
    socket.ws.close()
    await client.close()
  })

  it("returns a reject's feedback as the error text and the session goes on", async () => {
    const host = await start({ config: bashAsks })
    const socket = await supervisor(host)
    const { client } = await connectClient(host, { project: makeTempDir() })
    const sessionID = await onlySession(host)
    const call = client.callTool({ name: "bash", arguments: { command: "rm -rf build", description: "clean" } })
    const ask = await nextAsk(socket, (request) => request.sessionID === sessionID)
    await reply(host, ask, "reject", "use make clean instead")
    const result = await call
    assert.isTrue(result.isError)
    assert.include(textOf(result), "use make clean instead")
    assert.strictEqual((await sessionOf(host, sessionID)).status, "idle")
    const next = await client.callTool({ name: "glob", arguments: { pattern: "*" } })
    assert.isNotTrue(next.isError)
    socket.ws.close()
    await client.close()
  })

  it("answers a decline with an instruction to stop and wait, and marks the session declined", async () => {
    const host = await start({ config: bashAsks })
    const socket = await supervisor(host)
    const { client } = await connectClient(host, { project: makeTempDir() })
    const sessionID = await onlySession(host)
    const call = client.callTool({ name: "bash", arguments: { command: "curl evil.example", description: "fetch" } })
    const ask = await nextAsk(socket, (request) => request.sessionID === sessionID)
    await reply(host, ask, "reject")
    const result = await call
    assert.isTrue(result.isError)
    assert.match(textOf(result), /declined/)
    assert.match(textOf(result), /Stop now and wait for the user's instructions/)
    const session = await sessionOf(host, sessionID)
    assert.strictEqual(session.status, "declined")
    const [recorded] = await callsOf(host, sessionID)
    assert.strictEqual(recorded!.status, "error")
    // A decline is not a lock: once the person tells the model what to do, it may go on.
    const next = await client.callTool({ name: "glob", arguments: { pattern: "*" } })
    assert.isNotTrue(next.isError)
    assert.strictEqual((await sessionOf(host, sessionID)).status, "idle")
    socket.ws.close()
    await client.close()
  })

  it("treats a dismissed question as a decline", async () => {
    const host = await start()
    const socket = await supervisor(host)
    const { client } = await connectClient(host, { project: makeTempDir() })
    const sessionID = await onlySession(host)
    const call = client.callTool({
      name: "question",
      arguments: {
        questions: [{ question: "Which branch?", header: "Branch", options: [{ label: "main", description: "main" }] }],
      },
    })
    const asked = await nextEvent(socket, (event) => event._tag === "question.v2.asked")
    const answer = await socket.request("question.reject", { requestID: (asked.request as { id: string }).id })
    assert.strictEqual(answer.exit._tag, "Success")
    const result = await call
    assert.isTrue(result.isError)
    assert.match(textOf(result), /dismissed this question/)
    assert.match(textOf(result), /wait for the user's instructions/)
    assert.strictEqual((await sessionOf(host, sessionID)).status, "declined")
    socket.ws.close()
    await client.close()
  })

  it("withdraws the ask of a call the client cancels, so it leaves the inbox", async () => {
    const host = await start({ config: bashAsks })
    const socket = await supervisor(host)
    const { client } = await connectClient(host, { project: makeTempDir() })
    const sessionID = await onlySession(host)
    const controller = new AbortController()
    const call = client.callTool({ name: "bash", arguments: { command: "sleep 1", description: "wait" } }, undefined, {
      signal: controller.signal,
    })
    const ask = await nextAsk(socket, (request) => request.sessionID === sessionID)
    assert.lengthOf(await pending(host), 1)
    controller.abort("changed my mind")
    await call.then(
      () => assert.fail("a cancelled call resolved"),
      () => undefined,
    )
    await nextEvent(socket, (event) => event._tag === "permission.v2.withdrawn" && event.requestID === ask.id)
    assert.lengthOf(await pending(host), 0)
    await nextEvent(
      socket,
      (event) => event._tag === "tool_call.finished" && (event.call as { status: string }).status === "interrupted",
    )
    const [recorded] = await callsOf(host, sessionID)
    assert.strictEqual(recorded!.status, "interrupted")
    socket.ws.close()
    await client.close()
  })

  it("withdraws the ask of a waiting call when its client disconnects", async () => {
    const host = await start({ config: bashAsks })
    const socket = await supervisor(host)
    const { client } = await connectClient(host, { project: makeTempDir() })
    const sessionID = await onlySession(host)
    const call = client.callTool({ name: "bash", arguments: { command: "sleep 1", description: "wait" } })
    const ask = await nextAsk(socket, (request) => request.sessionID === sessionID)
    await client.close()
    await call.catch(() => undefined)
    await nextEvent(socket, (event) => event._tag === "permission.v2.withdrawn" && event.requestID === ask.id)
    assert.lengthOf(await pending(host), 0)
    socket.ws.close()
  })

  it("keeps the asks of two clients in two projects apart", async () => {
    const host = await start({ config: bashAsks })
    const socket = await supervisor(host)
    const [projectA, projectB] = [makeTempDir(), makeTempDir()]
    const a = await connectClient(host, { project: projectA, name: "client-a" })
    const b = await connectClient(host, { project: projectB, name: "client-b" })
    const sessions = await sessionsOf(host)
    const sessionA = sessions.find((session) => session.source === "mcp:client-a")!.id
    const sessionB = sessions.find((session) => session.source === "mcp:client-b")!.id
    const callA = a.client.callTool({ name: "bash", arguments: { command: "pwd; echo from-a", description: "a" } })
    const callB = b.client.callTool({ name: "bash", arguments: { command: "pwd; echo from-b", description: "b" } })
    const askA = await nextAsk(socket, (request) => request.sessionID === sessionA)
    const askB = await nextAsk(socket, (request) => request.sessionID === sessionB)
    assert.deepStrictEqual(askA.resources, ["pwd; echo from-a"])
    assert.deepStrictEqual(askB.resources, ["pwd; echo from-b"])
    // Approving B's ask leaves A's waiting; rejecting A's never touches B.
    await reply(host, askB, "once")
    const resultB = await callB
    assert.include(textOf(resultB), "from-b")
    assert.include(textOf(resultB), projectB)
    assert.deepStrictEqual(
      (await pending(host)).map((request) => request.id),
      [askA.id],
    )
    await reply(host, askA, "reject", "not now")
    const resultA = await callA
    assert.isTrue(resultA.isError)
    assert.include(textOf(resultA), "not now")
    assert.strictEqual((await sessionOf(host, sessionB)).status, "idle")
    socket.ws.close()
    await a.client.close()
    await b.client.close()
  })

  it("sends progress notifications while a call waits for the person", async () => {
    const host = await start({ config: bashAsks, mcp: { progressInterval: "20 millis" } })
    const socket = await supervisor(host)
    const { client } = await connectClient(host, { project: makeTempDir() })
    const sessionID = await onlySession(host)
    const progress: Array<{ progress: number; message?: string | undefined }> = []
    let twice: () => void = () => undefined
    const seenTwice = new Promise<void>((resolve) => (twice = resolve))
    const call = client.callTool({ name: "bash", arguments: { command: "echo ok", description: "echo" } }, undefined, {
      onprogress: (notification) => {
        progress.push(notification)
        if (progress.length === 2) twice()
      },
    })
    const ask = await nextAsk(socket, (request) => request.sessionID === sessionID)
    await seenTwice
    await reply(host, ask, "once")
    await call
    assert.isAtLeast(progress.length, 2)
    assert.isBelow(progress[0]!.progress, progress[1]!.progress)
    assert.include(
      progress.map((entry) => entry.message),
      "Waiting for approval in Gatehouse",
    )
    socket.ws.close()
    await client.close()
  })

  it("refuses every call of a session stopped from the UI until the client reconnects", async () => {
    const host = await start({ config: bashAsks })
    const socket = await supervisor(host)
    const project = makeTempDir()
    const { client } = await connectClient(host, { project })
    const sessionID = await onlySession(host)
    const call = client.callTool({ name: "bash", arguments: { command: "echo never", description: "echo" } })
    const ask = await nextAsk(socket, (request) => request.sessionID === sessionID)
    const stopped = await socket.request("sessions.stop", { sessionID })
    assert.strictEqual(stopped.exit._tag, "Success")
    const interrupted = await call
    assert.isTrue(interrupted.isError)
    assert.strictEqual(textOf(interrupted), STOPPED_TEXT)
    await nextEvent(socket, (event) => event._tag === "permission.v2.withdrawn" && event.requestID === ask.id)
    assert.lengthOf(await pending(host), 0)
    assert.strictEqual((await sessionOf(host, sessionID)).status, "stopped")
    const refused = await client.callTool({ name: "glob", arguments: { pattern: "*" } })
    assert.isTrue(refused.isError)
    assert.strictEqual(textOf(refused), STOPPED_TEXT)
    await client.close()
    // Reconnecting is a new MCP session, and with it a new Gatehouse session.
    const again = await connectClient(host, { project })
    const result = await again.client.callTool({ name: "glob", arguments: { pattern: "*" } })
    assert.isNotTrue(result.isError)
    const sessions = await live(host)
    assert.deepStrictEqual(
      sessions.map((entry) => entry.stopped),
      [true, false],
    )
    assert.notStrictEqual(sessions[1]!.sessionID, sessionID)
    socket.ws.close()
    await again.client.close()
  })

  it("leaves a stop of a session that already ended without effect", async () => {
    const host = await start()
    const socket = await supervisor(host)
    const { client, transport } = await connectClient(host, { project: makeTempDir() })
    const sessionID = await onlySession(host)
    await transport.terminateSession()
    await client.close()
    const answer = await socket.request("sessions.stop", { sessionID })
    assert.strictEqual(answer.exit._tag, "Success")
    assert.strictEqual((await sessionOf(host, sessionID)).reason, DISCONNECTED)
    socket.ws.close()
  })

  it("stops its sessions when Gatehouse shuts down, and those a crash left open when it starts again", async () => {
    const dataDir = makeTempDir("gatehouse-mcp-")
    const first = await startHost({ dataDir })
    const { client } = await connectClient(first, { project: makeTempDir() })
    const sessionID = await onlySession(first)
    await first.close()
    await client.close()
    const database = new Database(join(dataDir, "gatehouse.db"))
    assert.deepStrictEqual(database.prepare("SELECT status, status_reason FROM session WHERE id = ?").get(sessionID), {
      status: "stopped",
      status_reason: Runner.SHUT_DOWN,
    })
    // What a crash leaves: the row as it was while the client was connected.
    database.prepare("UPDATE session SET status = 'idle', status_reason = NULL WHERE id = ?").run(sessionID)
    database.close()
    const second = await start({ dataDir })
    const session = await sessionOf(second, sessionID)
    assert.strictEqual(session.status, "stopped")
    assert.strictEqual(session.reason, RESTARTED)
  })
})
