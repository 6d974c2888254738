import { mkdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, ManagedRuntime } from "effect"
import type { PermissionRequestId, SessionId } from "@contract/ids"
import type { PermissionRequest } from "@contract/model"
import { Connectors } from "@core/connector/Connectors"
import { EventBus } from "@core/events/EventBus"
import { AskSources } from "@core/permission/AskSources"
import { DecisionLog } from "@core/permission/DecisionLog"
import { SavedApprovals } from "@core/permission/SavedApprovals"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import { ToolCalls } from "@core/session/ToolCalls"
import { inboxHandlers, pendingReader } from "@main/ipc/inbox"
import { coreTestLayer } from "../../../support/layers"
import {
  bashTurn,
  eventually,
  externalAddress,
  opencodeApi,
  opencodeBinary,
  opencodeHome,
  startOpencode,
  startScriptedModel,
  writeOpencodeProject,
  type OpencodeServer,
  type ScriptedModel,
} from "../../../support/opencode"
import { makeTempDir } from "../../../support/temp"

// Gatehouse supervising a real `opencode serve` (the opencode-ai dev dependency) whose model is a
// scripted local chat-completions server that makes it call bash. One OpenCode server and one
// Gatehouse "process" (a runtime over a real SQLite file) serve the whole file; each test works in
// its own OpenCode session. Both sides are restarted in the last tests.

const binary = opencodeBinary()
const PASSWORD = "gatehouse-test-password"
const NAME = "oc"

const fastTuning = {
  backoff: { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 },
  idleTimeoutMs: 30_000,
}

interface Gatehouse {
  readonly runtime: ManagedRuntime.ManagedRuntime<GatehouseServices, unknown>
  readonly sources: AskSources.Interface
  readonly connectors: Connectors.Interface
  readonly sessions: Sessions.Interface
  /** Resolves once `check` holds, re-checking after every event (bounded). */
  readonly until: <A>(what: string, check: () => A | undefined | false, timeoutMs?: number) => Promise<A>
  readonly run: <A, E>(effect: Effect.Effect<A, E, GatehouseServices>) => Promise<A>
}

type GatehouseServices = Layer.Success<ReturnType<typeof gatehouseLayer>>

const gatehouseLayer = (dataDir: string, url: string) =>
  Connectors.layer({ env: { OC_PASSWORD: PASSWORD }, tuning: fastTuning }).pipe(
    Layer.provideMerge(ToolCalls.layer),
    Layer.provideMerge(
      coreTestLayer({
        dataDir,
        database: join(dataDir, "gatehouse.db"),
        config: {
          connectors: {
            opencode: [
              { url, name: NAME, password_env: "OC_PASSWORD" },
              { url, name: "wrong-password", password: "not-it" },
            ],
          },
        },
      }),
    ),
  )

async function startGatehouse(dataDir: string, url: string): Promise<Gatehouse> {
  const runtime = ManagedRuntime.make(gatehouseLayer(dataDir, url))
  const context = await runtime.context()
  const bus = Context.get(context, EventBus.Service)
  const until: Gatehouse["until"] = (what, check, timeoutMs = 30_000) =>
    runtime.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const subscription = yield* bus.subscribe(() => undefined)
          for (;;) {
            const value = check()
            if (value !== undefined && value !== false) return value
            yield* subscription.takeBatch
          }
        }),
      ).pipe(
        Effect.timeoutOrElse({
          duration: timeoutMs,
          orElse: () => Effect.die(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`)),
        }),
      ),
    )
  return {
    runtime,
    sources: Context.get(context, AskSources.Service),
    connectors: Context.get(context, Connectors.Service),
    sessions: Context.get(context, Sessions.Service),
    until,
    run: (effect) => runtime.runPromise(effect),
  }
}

const connector = (gatehouse: Gatehouse, name = NAME) =>
  gatehouse.connectors.listUnsafe().find((info) => info.name === name)

/** The pending ask of the inbox whose first resource is `command`. */
const askFor = (gatehouse: Gatehouse, command: string): PermissionRequest | undefined =>
  gatehouse.sources.pendingUnsafe().find(({ request }) => request.resources[0] === command)?.request

const decision = (gatehouse: Gatehouse, id: PermissionRequestId) =>
  gatehouse.run(Effect.flatMap(DecisionLog.Service, (log) => log.get(id)))

describe.skipIf(!binary.path)(
  `Connectors with a real OpenCode server${binary.path ? "" : ` (skipped: ${binary.reason})`}`,
  () => {
    let work: string
    let project: string
    let dataDir: string
    let model: ScriptedModel
    let opencode: OpencodeServer
    let home: Record<string, string>
    let gatehouse: Gatehouse
    let api: ReturnType<typeof opencodeApi>

    beforeAll(async () => {
      work = makeTempDir("gatehouse-opencode-")
      project = join(work, "project")
      dataDir = join(work, "gatehouse")
      model = await startScriptedModel()
      writeOpencodeProject(project, model.server.baseUrl)
      home = opencodeHome(work)
      opencode = await startOpencode({ directory: project, env: home, password: PASSWORD })
      api = opencodeApi(opencode.url, PASSWORD)
      gatehouse = await startGatehouse(makeDataDirIn(dataDir), opencode.url)
      await gatehouse.until("the connection", () => connector(gatehouse)?.state === "connected", 60_000)
    }, 120_000)

    afterAll(async () => {
      await gatehouse?.runtime.dispose()
      await opencode?.stop()
      await model?.server.close()
      rmSync(work, { recursive: true, force: true })
    })

    /** Prompts an OpenCode session so that its agent's next turn runs `commands` (at once when several). */
    const promptIn = async (sessionID: string, ...commands: ReadonlyArray<string>) => {
      const prompt = `Run ${commands.join(" and ")}`
      model.queue(prompt, bashTurn(...commands))
      await api.prompt(sessionID, prompt)
    }

    /** A new OpenCode session whose next agent turn runs `commands` (at once when several). */
    const promptBash = async (...commands: ReadonlyArray<string>) => {
      const session = await api.createSession()
      await promptIn(session.id, ...commands)
      return session
    }

    it("shows the connection's state, and refuses a wrong password as unauthorized", async () => {
      const info = connector(gatehouse)!
      assert.strictEqual(info.state, "connected")
      assert.strictEqual(info.username, "opencode")
      assert.isTrue(info.hasPassword)
      assert.match(info.version ?? "", /^\d+\.\d+\.\d+/)
      await gatehouse.until(
        "the wrong password to be refused",
        () => connector(gatehouse, "wrong-password")?.state === "unauthorized",
      )
      assert.match(connector(gatehouse, "wrong-password")!.detail ?? "", /401/)
    })

    it("shows an OpenCode ask in the inbox and runs the command once Gatehouse approves it", async () => {
      const remote = await promptBash("echo approved-by-gatehouse")
      const request = await gatehouse.until("the ask", () => askFor(gatehouse, "echo approved-by-gatehouse"))
      assert.strictEqual(request.action, "bash")
      assert.deepStrictEqual(request.save, ["echo *"])
      assert.deepStrictEqual(request.metadata, { command: "echo approved-by-gatehouse" })
      assert.strictEqual(request.source?.type, "tool")

      const session = gatehouse.sessions.findUnsafe(request.sessionID)!
      assert.strictEqual(session.source, "opencode:oc")
      const projectOf = await gatehouse.run(
        Effect.flatMap(Projects.Service, (projects) => projects.get(session.projectId)),
      )
      assert.strictEqual(projectOf?.directory, project)
      await gatehouse.until(
        "the session to be blocked",
        () => gatehouse.sessions.findUnsafe(session.id)?.status === "blocked",
      )

      // The inbox's snapshot lists it like any ask, with its project and the session's agent.
      const inbox = await gatehouse.run(Effect.map(pendingReader, (read) => read(gatehouse.sessions.listUnsafe())))
      const listed = inbox.asks.find((ask) => ask.request.id === request.id)
      assert.strictEqual(listed?.projectID, session.projectId)
      assert.strictEqual(listed?.agent, "build")
      assert.strictEqual(connector(gatehouse)?.pending, 1)

      await gatehouse.run(inboxHandlers["permission.reply"]({ requestID: request.id, reply: "once" }))
      assert.isUndefined(askFor(gatehouse, "echo approved-by-gatehouse"))
      const part = await eventually("the command's output in OpenCode", async () =>
        (await api.toolParts(remote.id)).find((part) => part.state?.status === "completed"),
      )
      assert.strictEqual(part.state?.output, "approved-by-gatehouse\n")
      const logged = await decision(gatehouse, request.id)
      assert.strictEqual(logged?.status, "once")
      assert.strictEqual(logged?.decidedBy, "person")
      assert.strictEqual(logged?.connector, "opencode:oc")
      assert.match(logged?.remoteID ?? "", /^per_/)
      assert.isUndefined(logged?.answeredRemotely)
    })

    it("forwards a reject with feedback, and the model reads the feedback", async () => {
      await promptBash("rm -rf build")
      const request = await gatehouse.until("the ask", () => askFor(gatehouse, "rm -rf build"))
      const turns = model.turns().length
      await gatehouse.run(
        inboxHandlers["permission.reply"]({ requestID: request.id, reply: "reject", message: "Use the clean script" }),
      )
      const next = await eventually("the model's next turn", () =>
        model
          .turns()
          .slice(turns)
          .find((turn) => JSON.stringify(turn.body).includes("rm -rf build")),
      )
      assert.include(JSON.stringify(next.body), "Use the clean script")
      const logged = await decision(gatehouse, request.id)
      assert.strictEqual(logged?.status, "corrected")
      assert.strictEqual(logged?.feedback, "Use the clean script")
    })

    it("drops an ask answered in OpenCode itself from the inbox and logs it as answered there", async () => {
      await promptBash("echo answered-in-opencode")
      const request = await gatehouse.until("the ask", () => askFor(gatehouse, "echo answered-in-opencode"))
      const logged = await decision(gatehouse, request.id)
      const [remote] = (await api.permissions()).filter((ask) => ask.id === logged?.remoteID)
      assert.isDefined(remote)
      await api.reply(remote!.id, { reply: "once" })
      await gatehouse.until("the ask to leave", () => askFor(gatehouse, "echo answered-in-opencode") === undefined)
      const after = await decision(gatehouse, request.id)
      assert.strictEqual(after?.status, "once")
      assert.isTrue(after?.answeredRemotely)
    })

    it("drops an ask from the inbox when its session is aborted in OpenCode, though OpenCode still lists it", async () => {
      const remote = await promptBash("echo aborted-in-opencode")
      const request = await gatehouse.until("the ask", () => askFor(gatehouse, "echo aborted-in-opencode"))
      await api.abort(remote.id)
      await gatehouse.until(
        "the ask to leave",
        () => askFor(gatehouse, "echo aborted-in-opencode") === undefined,
        15_000,
      )
      assert.strictEqual((await decision(gatehouse, request.id))?.status, "interrupted")
    })

    it("rejects every ask of a session through OpenCode's own cascade", async () => {
      const remote = await promptBash("echo first-of-two", "echo second-of-two")
      const [first, second] = await gatehouse.until("both asks", () => {
        const a = askFor(gatehouse, "echo first-of-two")
        const b = askFor(gatehouse, "echo second-of-two")
        return a && b ? [a, b] : undefined
      })
      assert.strictEqual(first!.sessionID, second!.sessionID)
      const result = await gatehouse.run(
        inboxHandlers["permission.rejectSession"]({ sessionID: first!.sessionID as SessionId }),
      )
      assert.sameMembers([...result.rejected], [first!.id, second!.id])
      const statuses = [(await decision(gatehouse, first!.id))?.status, (await decision(gatehouse, second!.id))?.status]
      assert.sameMembers(statuses, ["reject", "cascade"])
      await eventually(
        "OpenCode to have no pending ask in the session",
        async () => (await api.permissions()).filter((ask) => ask.sessionID === remote.id).length === 0,
      )
    })

    it("saves an always as a Gatehouse approval, answers OpenCode once, and lets the approval answer the next ask", async () => {
      const remote = await promptBash("touch marker-one")
      const request = await gatehouse.until("the ask", () => askFor(gatehouse, "touch marker-one"))
      const projectID = gatehouse.sessions.findUnsafe(request.sessionID)!.projectId
      await gatehouse.run(inboxHandlers["permission.reply"]({ requestID: request.id, reply: "always" }))
      const approvals = await gatehouse.run(
        Effect.flatMap(SavedApprovals.Service, (saved) => saved.list({ projectID })),
      )
      const approval = approvals.find((entry) => entry.action === "bash" && entry.resource === "touch *")
      assert.strictEqual(approval?.requestID, request.id)
      assert.strictEqual((await decision(gatehouse, request.id))?.status, "always")

      // OpenCode was told `once`, so it asks again for the next touch: the saved approval answers.
      await promptIn(remote.id, "touch marker-two")
      const answered = await eventually("the second touch to run", async () =>
        (await api.toolParts(remote.id)).filter((part) => part.state?.status === "completed").length === 2
          ? true
          : undefined,
      )
      assert.isTrue(answered)
      const auto = (
        await gatehouse.run(
          Effect.flatMap(DecisionLog.Service, (log) => log.list({ sessionID: request.sessionID, status: "auto" })),
        )
      )[0]
      assert.deepStrictEqual(auto?.resources, ["touch marker-two"])
      assert.strictEqual(auto?.decidedBy, "approval")
      assert.deepStrictEqual(auto?.approvalIDs, [approval!.id])
      const counted = await gatehouse.run(Effect.flatMap(SavedApprovals.Service, (saved) => saved.list({ projectID })))
      assert.strictEqual(counted.find((entry) => entry.id === approval!.id)?.hitCount, 1)
    })

    it("stops the sessions of a removed connection and leaves the other connection's alone", async () => {
      await gatehouse.run(
        Effect.asVoid(gatehouse.connectors.add({ url: opencode.url, name: "extra", password: PASSWORD })),
      )
      await gatehouse.until("the extra connection", () => connector(gatehouse, "extra")?.state === "connected")
      const remote = await api.createSession()
      const mirrorOf = (source: string) =>
        gatehouse
          .run(Effect.flatMap(Sessions.Service, (sessions) => sessions.list()))
          .then((all) => all.find((session) => session.source === source && session.title === remote.title))
      const extra = await eventually("the extra connection's session", () => mirrorOf("opencode:extra"))
      const own = await eventually("this connection's session", () => mirrorOf(`opencode:${NAME}`))
      await gatehouse.run(gatehouse.connectors.remove("extra"))
      const stopped = gatehouse.sessions.findUnsafe(extra.id)
      assert.strictEqual(stopped?.status, "stopped")
      assert.strictEqual(stopped?.reason, "The connection was removed")
      assert.notStrictEqual(gatehouse.sessions.findUnsafe(own.id)?.status, "stopped")
      assert.isUndefined(connector(gatehouse, "extra"))
    })

    it.skipIf(!externalAddress())(
      "keeps the sessions of a server on another address in that machine's projects, and answers its asks",
      async () => {
        // The same binary, reached through this machine's network address rather than loopback:
        // as far as Gatehouse can tell, another machine, whose paths mean nothing here.
        const address = externalAddress()!
        const elsewhere = join(work, "elsewhere")
        const remoteProject = join(elsewhere, "project")
        writeOpencodeProject(remoteProject, model.server.baseUrl)
        const server = await startOpencode({
          directory: remoteProject,
          env: opencodeHome(elsewhere),
          password: PASSWORD,
          hostname: address,
        })
        try {
          await gatehouse.run(
            Effect.asVoid(gatehouse.connectors.add({ url: server.url, name: "devbox", password: PASSWORD })),
          )
          await gatehouse.until("the devbox connection", () => connector(gatehouse, "devbox")?.state === "connected")
          const remoteApi = opencodeApi(server.url, PASSWORD)
          const session = await remoteApi.createSession()
          model.queue("Run it elsewhere", bashTurn("echo on-another-machine"))
          await remoteApi.prompt(session.id, "Run it elsewhere")
          const request = await gatehouse.until("the ask", () => askFor(gatehouse, "echo on-another-machine"))
          const mirrored = gatehouse.sessions.findUnsafe(request.sessionID)!
          assert.strictEqual(mirrored.source, "opencode:devbox")
          const project = await gatehouse.run(
            Effect.flatMap(Projects.Service, (projects) => projects.get(mirrored.projectId)),
          )
          assert.strictEqual(project?.directory, `${address}:${session.directory}`)
          assert.strictEqual(project?.name, "project")
          await gatehouse.run(inboxHandlers["permission.reply"]({ requestID: request.id, reply: "once" }))
          const part = await eventually("the command's output", async () =>
            (await remoteApi.toolParts(session.id)).find((part) => part.state?.status === "completed"),
          )
          assert.strictEqual(part.state?.output, "on-another-machine\n")
        } finally {
          await gatehouse.run(Effect.ignore(gatehouse.connectors.remove("devbox")))
          await server.stop()
        }
      },
      120_000,
    )

    it("reconnects after OpenCode restarts and withdraws the asks the restart dropped", async () => {
      const remote = await promptBash("echo before-opencode-restart")
      const request = await gatehouse.until("the ask", () => askFor(gatehouse, "echo before-opencode-restart"))
      const port = opencode.port
      await opencode.stop()
      await gatehouse.until("the connection to drop", () =>
        ["reconnecting", "unreachable"].includes(connector(gatehouse)?.state ?? ""),
      )
      // While OpenCode is down an answer cannot be delivered: the ask stays, and the inbox says why.
      const many = await gatehouse.run(
        inboxHandlers["permission.replyMany"]({ requestIDs: [request.id], reply: "once" }),
      )
      assert.strictEqual(many.results[0]?.outcome, "failed")
      assert.include(many.results[0]?.reason ?? "", NAME)
      const one = await gatehouse.run(
        Effect.flip(inboxHandlers["permission.reply"]({ requestID: request.id, reply: "once" })),
      )
      assert.strictEqual(one._tag, "AskSources.ForwardError")
      const session = await gatehouse.run(
        Effect.flip(inboxHandlers["permission.rejectSession"]({ sessionID: request.sessionID as SessionId })),
      )
      assert.strictEqual(session._tag, "AskSources.ForwardError")
      assert.isDefined(askFor(gatehouse, "echo before-opencode-restart"))
      opencode = await startOpencode({ directory: project, env: home, password: PASSWORD, port })
      await gatehouse.until("the connection to return", () => connector(gatehouse)?.state === "connected", 60_000)
      await gatehouse.until(
        "the dropped ask to leave",
        () => askFor(gatehouse, "echo before-opencode-restart") === undefined,
      )
      assert.strictEqual((await decision(gatehouse, request.id))?.status, "interrupted")

      // The same OpenCode session is still the same Gatehouse session.
      await promptIn(remote.id, "echo after-opencode-restart")
      const again = await gatehouse.until("the new ask", () => askFor(gatehouse, "echo after-opencode-restart"))
      assert.strictEqual(again.sessionID, request.sessionID)
      await gatehouse.run(inboxHandlers["permission.reply"]({ requestID: again.id, reply: "once" }))
    }, 120_000)

    it("finds pending OpenCode asks again after Gatehouse restarts, keeping its decisions", async () => {
      const remote = await promptBash("echo across-gatehouse-restart")
      const before = await gatehouse.until("the ask", () => askFor(gatehouse, "echo across-gatehouse-restart"))
      const decided = await gatehouse.run(Effect.flatMap(DecisionLog.Service, (log) => log.list({ status: "once" })))
      await gatehouse.runtime.dispose()

      gatehouse = await startGatehouse(dataDir, opencode.url)
      const after = await gatehouse.until(
        "the ask to come back",
        () => askFor(gatehouse, "echo across-gatehouse-restart"),
        60_000,
      )
      assert.notStrictEqual(after.id, before.id)
      assert.strictEqual(after.sessionID, before.sessionID)
      assert.strictEqual((await decision(gatehouse, before.id))?.status, "interrupted")
      const kept = await gatehouse.run(Effect.flatMap(DecisionLog.Service, (log) => log.list({ status: "once" })))
      assert.includeMembers(
        kept.map((row) => row.id),
        decided.map((row) => row.id),
      )
      await gatehouse.run(inboxHandlers["permission.reply"]({ requestID: after.id, reply: "once" }))
      const part = await eventually("the command's output", async () =>
        (await api.toolParts(remote.id)).find((part) => part.state?.status === "completed"),
      )
      assert.strictEqual(part.state?.output, "across-gatehouse-restart\n")
    }, 120_000)
  },
)

function makeDataDirIn(path: string): string {
  mkdirSync(path, { recursive: true })
  return path
}
