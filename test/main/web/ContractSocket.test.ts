import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Context, Effect, ManagedRuntime } from "effect"
import type { Snapshot } from "@contract/methods"
import { Tokens } from "@core/auth/Tokens"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import { ContractSocket } from "@main/web/ContractSocket"
import { makeHostLayer } from "@main/web/Headless"
import { HttpServer } from "@main/web/HttpServer"
import { makeTempDir } from "../../support/temp"
import { makeRendererDir } from "./http"
import { connect, type EventsMessage } from "./socket"

const root = makeTempDir()
const runtime = ManagedRuntime.make(
  makeHostLayer({ dataDir: join(root, "data"), port: 0, env: {}, rendererDir: makeRendererDir(root) }),
)
let port: number
let token: string

beforeAll(async () => {
  const context = await runtime.context()
  port = Context.get(context, HttpServer.Service).port
  token = Context.get(context, Tokens.Service).supervisor
})
afterAll(() => runtime.dispose())

const createSession = (title: string) =>
  runtime.runPromise(
    Effect.gen(function* () {
      const projects = yield* Projects.Service
      const sessions = yield* Sessions.Service
      const project = yield* projects.ensure(root)
      return yield* sessions.create({ projectId: project.id, agent: "build", title, source: "runner" })
    }),
  )

describe("ContractSocket", () => {
  it("answers app.info with an encoded Exit that names the headless host", async () => {
    const client = await connect(port, token)
    const answer = await client.request("app.info")
    assert.strictEqual(answer.exit._tag, "Success")
    const info = answer.exit.value as { host: string; name: string; seq: number }
    assert.strictEqual(info.host, "headless")
    assert.strictEqual(info.name, "Gatehouse")
    client.ws.close()
  })

  it("gives a snapshot and then every later event exactly once, in order, while events are being published", async () => {
    await createSession("before")
    let publish = true
    const publishing = (async () => {
      for (let i = 0; publish; i++) {
        await createSession(`s${i}`)
        // Yield to I/O so the client connects and asks for its snapshot mid-stream.
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    const client = await connect(port, token)
    const snapshot = (await client.request("app.snapshot")).exit.value as Snapshot
    await client.waitFor(
      (message) => message.type === "events" && message.batch.events.some((e) => e.seq >= snapshot.seq + 50),
    )
    publish = false
    await publishing
    const finalSeq = ((await client.request("app.info")).exit.value as { seq: number }).seq
    await client.waitFor((message) => message.type === "events" && message.batch.events.some((e) => e.seq === finalSeq))
    const after = client.messages
      .filter((message): message is EventsMessage => message.type === "events")
      .flatMap((message) => message.batch.events)
      .filter((envelope) => envelope.seq > snapshot.seq)
    after.forEach((envelope, index) => assert.strictEqual(envelope.seq, snapshot.seq + index + 1))
    assert.strictEqual(after.at(-1)?.seq, finalSeq)
    assert.isAbove(snapshot.sessions.length, 0)
    const ids = [
      ...snapshot.sessions.map((session) => session.id),
      ...after.map((envelope) => (envelope.event as unknown as { session: { id: string } }).session.id),
    ]
    const all = await runtime.runPromise(Effect.flatMap(Sessions.Service, (sessions) => sessions.list()))
    assert.deepStrictEqual(ids.toSorted(), all.map((session) => session.id as string).toSorted())
    client.ws.close()
  })

  it("pushes events to every connected client", async () => {
    const first = await connect(port, token)
    const second = await connect(port, token)
    const session = await createSession("fan-out")
    const carries = (message: { type: string }) =>
      message.type === "events" &&
      (message as EventsMessage).batch.events.some(
        (envelope) => (envelope.event as unknown as { session?: { id: string } }).session?.id === session.id,
      )
    await Promise.all([first.waitFor(carries), second.waitFor(carries)])
    first.ws.close()
    second.ws.close()
  })

  it("answers an unknown method and a malformed request with Contract.InvalidRequestError, and keeps the connection", async () => {
    const client = await connect(port, token)
    const unknown = await client.request("app.nope")
    assert.deepStrictEqual(unknown.exit, {
      _tag: "Failure",
      cause: [
        { _tag: "Fail", error: { _tag: "Contract.InvalidRequestError", method: "app.nope", reason: "unknown method" } },
      ],
    })
    client.ws.send(JSON.stringify({ id: 99, method: 42 }))
    const malformed = await client.waitFor((message) => message.type === "result" && message.id === 99)
    assert.include(JSON.stringify(malformed), "Contract.InvalidRequestError")
    assert.include(JSON.stringify(malformed), "method")
    assert.strictEqual((await client.request("app.info")).exit._tag, "Success")
    client.ws.close()
  })

  it("closes the connection with 1007 and the reason on a frame that is not a request at all", async () => {
    for (const frame of ["not json", "[1,2]", "null", JSON.stringify({ method: "app.info" })]) {
      const client = await connect(port, token)
      client.ws.send(frame)
      const closed = await client.closed
      assert.strictEqual(closed.code, ContractSocket.CloseCode.invalidPayload, frame)
      assert.match(closed.reason, /^Bad frame: /)
    }
    const healthy = await connect(port, token)
    assert.strictEqual((await healthy.request("app.info")).exit._tag, "Success")
    healthy.ws.close()
  })

  it("closes the connection on binary frames and on frames over the size cap", async () => {
    const binary = await connect(port, token)
    binary.ws.send(Buffer.from([1, 2, 3]))
    assert.strictEqual((await binary.closed).code, ContractSocket.CloseCode.unsupportedData)
    const huge = await connect(port, token)
    huge.ws.send(JSON.stringify({ id: 1, method: "app.info", payload: "x".repeat(ContractSocket.maxFrameBytes) }))
    assert.strictEqual((await huge.closed).code, 1009)
  })
})

describe("ContractSocket.parseFrame", () => {
  it("reads a request, treating a missing payload as a void one", () => {
    assert.deepStrictEqual(ContractSocket.parseFrame('{"id":1,"method":"app.info"}'), {
      _tag: "request",
      request: { id: 1, method: "app.info", payload: undefined },
    })
  })

  it("keeps the id of a broken request so the client can be answered", () => {
    const parsed = ContractSocket.parseFrame('{"id":3,"method":["x"]}')
    assert.strictEqual(parsed._tag, "invalid")
    if (parsed._tag === "invalid") {
      assert.strictEqual(parsed.id, 3)
      assert.strictEqual(parsed.method, "(none)")
      assert.include(parsed.reason, "method")
    }
  })

  it("gives up on frames without an integer id", () => {
    assert.deepStrictEqual(ContractSocket.parseFrame('{"id":1.5,"method":"app.info"}'), {
      _tag: "fatal",
      reason: "the frame has no integer id",
    })
    assert.deepStrictEqual(ContractSocket.parseFrame("{"), { _tag: "fatal", reason: "the frame is not JSON" })
  })
})
