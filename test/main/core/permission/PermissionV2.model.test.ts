import { mkdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Logger, ManagedRuntime, Scope } from "effect"
import fc from "fast-check"
import type { PermissionRequestId, ProjectId, SessionId } from "@contract/ids"
import type { PermissionStatus } from "@contract/model"
import { Location } from "@core/location/Location"
import { DecisionLog } from "@core/permission/DecisionLog"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { SavedApprovals } from "@core/permission/SavedApprovals"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import { Store } from "@core/store/Store"
import { sql } from "@core/store/sql"
import { coreTestLayer } from "../../../support/layers"
import { makeTempDir } from "../../../support/temp"

// Model-based test of the approval store (RELIABILITY checks 22 and 24): random sequences of asks,
// answers, new and deleted sessions, and restarts (a crash that runs no finalizer, or a clean
// shutdown) against a real SQLite file, compared after every step with a deliberately naive model.

// The agent every session runs as: ask by default, allow reads under public/, deny one command.
const testerRules = [
  { action: "*", resource: "*", effect: "ask" as const },
  { action: "bash", resource: "rm -rf /", effect: "deny" as const },
  { action: "read", resource: "public/*", effect: "allow" as const },
]

/** The model's matcher: only the three pattern shapes the generators produce. */
const covers = (pattern: string, resource: string) =>
  pattern === "*" || pattern === resource || (pattern.endsWith("/*") && resource.startsWith(pattern.slice(0, -1)))

interface ModelSession {
  readonly project: number
  alive: boolean
}
interface ModelAsk {
  readonly key: number
  readonly session: number
  readonly action: string
  readonly resources: ReadonlyArray<string>
  readonly save: ReadonlyArray<string>
}
interface ModelApproval {
  readonly project: number
  readonly action: string
  readonly resource: string
  hits: number
}
interface Model {
  sessions: ModelSession[]
  pending: ModelAsk[]
  saved: ModelApproval[]
  log: Map<number, PermissionStatus>
  asks: number
}

/** What the model says an ask evaluates to; `hits` are the indexes of deciding saved approvals. */
function judge(model: Model, project: number, action: string, resources: ReadonlyArray<string>) {
  if (action === "bash" && resources.includes("rm -rf /")) return { effect: "deny" as const, hits: [] }
  const hits = new Set<number>()
  for (const resource of resources) {
    let decider = -1
    model.saved.forEach((approval, i) => {
      if (approval.project === project && approval.action === action && covers(approval.resource, resource)) decider = i
    })
    if (decider >= 0) hits.add(decider)
    else if (!(action === "read" && resource.startsWith("public/"))) return { effect: "ask" as const, hits: [] }
  }
  return { effect: "allow" as const, hits: [...hits] }
}

type Services = Layer.Success<ReturnType<typeof coreTestLayer>>

class Real {
  runtime!: ManagedRuntime.ManagedRuntime<Services, unknown>
  permissions: PermissionV2.Interface[] = []
  scopes: Scope.Closeable[] = []
  projects: ProjectId[] = []
  sessions: SessionId[] = []
  requests: PermissionRequestId[] = []

  constructor(
    readonly dir: string,
    readonly directories: ReadonlyArray<string>,
  ) {}

  async start() {
    const layer = coreTestLayer({
      dataDir: join(this.dir, "data"),
      database: join(this.dir, "gatehouse.db"),
      config: { agents: { tester: testerRules } },
    })
    // Crash restarts log a warning about the asks they interrupt; the model checks those instead.
    this.runtime = ManagedRuntime.make(layer.pipe(Layer.provide(Logger.layer([]))))
    this.permissions = []
    this.scopes = []
    for (const directory of this.directories) {
      const scope = Scope.makeUnsafe()
      const location = PermissionV2.layer.pipe(Layer.provide(Location.layerFromDirectory(directory)))
      const context = await this.runtime.runPromise(Layer.buildWithScope(location, scope))
      this.permissions.push(Context.get(context, PermissionV2.Service))
      this.scopes.push(scope)
    }
    const directories = this.directories
    this.projects = await this.run(
      Effect.gen(function* () {
        const projects = yield* Projects.Service
        return yield* Effect.forEach(directories, (directory) =>
          projects.ensure(directory).pipe(Effect.map((p) => p.id)),
        )
      }),
    )
  }

  run<A, E>(effect: Effect.Effect<A, E, Services>) {
    return this.runtime.runPromise(effect)
  }

  async stop(crash: boolean) {
    if (crash) {
      // The process dies: the file is closed and no finalizer runs.
      await this.run(
        Effect.gen(function* () {
          ;(yield* Store.Service).raw.close()
        }),
      )
      return
    }
    for (const scope of this.scopes) await this.runtime.runPromise(Scope.close(scope, Exit.void))
    await this.runtime.dispose()
  }
}

type Command = fc.AsyncCommand<Model, Real>

class NewSession implements Command {
  constructor(readonly project: number) {}
  check = () => true
  async run(model: Model, real: Real) {
    const projectId = real.projects[this.project]!
    const session = await real.run(
      Effect.gen(function* () {
        const sessions = yield* Sessions.Service
        return yield* sessions.create({ projectId, agent: "tester", title: "t", source: "runner" })
      }),
    )
    model.sessions.push({ project: this.project, alive: true })
    real.sessions.push(session.id)
    await verify(model, real)
  }
  toString = () => `newSession(${this.project})`
}

class DeleteSession implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.sessions.length > 0
  async run(model: Model, real: Real) {
    // Prefer a session that still has asks waiting: that is where deletion matters.
    const index =
      model.pending.length > 0
        ? model.pending[this.pick % model.pending.length]!.session
        : this.pick % model.sessions.length
    const id = real.sessions[index]!
    await real.run(
      Effect.gen(function* () {
        ;(yield* Store.Service).run(sql`DELETE FROM session WHERE id = ${id}`)
      }),
    )
    model.sessions[index]!.alive = false
    await verify(model, real)
  }
  toString = () => `deleteSession(#${this.pick})`
}

class Ask implements Command {
  constructor(
    readonly pick: number,
    readonly action: string,
    readonly resources: ReadonlyArray<string>,
    readonly save: ReadonlyArray<string>,
  ) {}
  check = (model: Readonly<Model>) => model.sessions.length > 0
  async run(model: Model, real: Real) {
    const index = this.pick % model.sessions.length
    const session = model.sessions[index]!
    const permission = real.permissions[session.project]!
    const exit = await real.runtime.runPromise(
      Effect.exit(
        permission.ask({
          sessionID: real.sessions[index]!,
          action: this.action,
          resources: this.resources,
          save: this.save,
        }),
      ),
    )
    if (!session.alive) {
      assert.isTrue(Exit.isFailure(exit), "an ask for a deleted session fails")
      await verify(model, real)
      return
    }
    assert.isTrue(Exit.isSuccess(exit))
    const result = Exit.isSuccess(exit) ? exit.value : undefined
    const expected = judge(model, session.project, this.action, this.resources)
    assert.strictEqual(result?.effect, expected.effect, "ask effect")
    for (const hit of expected.hits) model.saved[hit]!.hits += 1
    if (expected.effect === "ask") {
      const key = model.asks++
      model.pending.push({ key, session: index, action: this.action, resources: this.resources, save: this.save })
      model.log.set(key, "pending")
      real.requests[key] = result!.id
    }
    await verify(model, real)
  }
  toString = () =>
    `ask(#${this.pick}, ${this.action}, ${JSON.stringify(this.resources)}, save ${JSON.stringify(this.save)})`
}

class Answer implements Command {
  constructor(
    readonly pick: number,
    readonly reply: "once" | "always" | "reject",
    readonly feedback: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.pending.length > 0
  async run(model: Model, real: Real) {
    const ask = model.pending[this.pick % model.pending.length]!
    const project = model.sessions[ask.session]!.project
    await real.runtime.runPromise(
      real.permissions[project]!.reply({
        requestID: real.requests[ask.key]!,
        reply: this.reply,
        ...(this.feedback ? { message: "try something else" } : {}),
      }),
    )
    model.pending = model.pending.filter((other) => other !== ask)
    if (this.reply === "reject") {
      model.log.set(ask.key, this.feedback ? "corrected" : "reject")
      for (const other of model.pending.filter((other) => other.session === ask.session))
        model.log.set(other.key, "cascade")
      model.pending = model.pending.filter((other) => other.session !== ask.session)
    } else {
      model.log.set(ask.key, this.reply)
      if (this.reply === "always" && ask.save.length > 0) {
        for (const resource of ask.save) {
          const known = model.saved.some(
            (s) => s.project === project && s.action === ask.action && s.resource === resource,
          )
          if (!known) model.saved.push({ project, action: ask.action, resource, hits: 0 })
        }
        for (const other of [...model.pending]) {
          const session = model.sessions[other.session]!
          if (session.project !== project || !session.alive) continue
          const verdict = judge(model, project, other.action, other.resources)
          if (verdict.effect !== "allow") continue
          for (const hit of verdict.hits) model.saved[hit]!.hits += 1
          model.log.set(other.key, "auto")
          model.pending = model.pending.filter((p) => p !== other)
        }
      }
    }
    await verify(model, real)
  }
  toString = () => `reply(#${this.pick}, ${this.reply}${this.feedback ? " + feedback" : ""})`
}

class Restart implements Command {
  constructor(readonly crash: boolean) {}
  check = () => true
  async run(model: Model, real: Real) {
    await real.stop(this.crash)
    await real.start()
    for (const ask of model.pending) model.log.set(ask.key, "interrupted")
    model.pending = []
    await verify(model, real)
  }
  toString = () => (this.crash ? "crash+restart" : "shutdown+restart")
}

/** The pending set, the saved approvals and the decision log agree with the model and each other. */
async function verify(model: Model, real: Real) {
  const state = await real.run(
    Effect.gen(function* () {
      const saved = yield* SavedApprovals.Service
      const log = yield* DecisionLog.Service
      return { approvals: yield* saved.list(), rows: yield* log.list() }
    }),
  )
  const pending = real.permissions.flatMap((permission) => permission.listUnsafe().map((request) => request.id))
  assert.sameMembers(
    pending,
    model.pending.map((ask) => real.requests[ask.key]!),
    "pending asks",
  )
  assert.deepStrictEqual(
    state.approvals.map((a) => [real.projects.indexOf(a.projectID), a.action, a.resource, a.hitCount]),
    model.saved.map((s) => [s.project, s.action, s.resource, s.hits]),
    "saved approvals",
  )
  const rows = new Map(state.rows.map((row) => [row.id, row]))
  assert.strictEqual(rows.size, model.asks, "one log row per ask")
  for (const [key, status] of model.log)
    assert.strictEqual(rows.get(real.requests[key]!)?.status, status, `log status of ask #${key}`)
  assert.sameMembers(
    state.rows.filter((row) => row.status === "pending").map((row) => row.id),
    pending,
    "pending log rows are exactly the live asks",
  )
  for (const approval of state.approvals) {
    if (approval.requestID === null) continue
    const origin = rows.get(approval.requestID)!
    assert.strictEqual(origin.status, "always", "an approval comes from an always answer")
    assert.strictEqual(origin.projectID, approval.projectID, "an approval stays in the project it was saved for")
    assert.strictEqual(origin.action, approval.action, "an approval covers the action it was saved for")
    assert.include(origin.save ?? [], approval.resource, "an approval covers only a saved pattern")
  }
}

const resource = fc.constantFrom("src/a.ts", "src/b.ts", "lib/c.ts", "public/d", "rm -rf /")
const newSession = fc.nat(1).map((project) => new NewSession(project))
const ask = fc
  .record({
    pick: fc.nat(20),
    action: fc.constantFrom("read", "edit", "bash"),
    resources: fc.uniqueArray(resource, { minLength: 1, maxLength: 2 }),
    save: fc.constantFrom<ReadonlyArray<string>>([], ["*"], ["src/*"], ["src/a.ts"], ["src/*", "*"], ["rm -rf /"]),
  })
  .map(({ pick, action, resources, save }) => new Ask(pick, action, resources, save))
const answer = fc
  .record({
    pick: fc.nat(20),
    reply: fc.constantFrom("once" as const, "always" as const, "reject" as const),
    feedback: fc.boolean(),
  })
  .map(({ pick, reply, feedback }) => new Answer(pick, reply, reply === "reject" && feedback))
// Asks and answers dominate; sessions come and go and the process restarts now and then.
const commands = [
  newSession,
  newSession,
  ask,
  ask,
  ask,
  ask,
  answer,
  answer,
  answer,
  fc.nat(20).map((pick) => new DeleteSession(pick)),
  fc.boolean().map((crash) => new Restart(crash)),
]

describe("PermissionV2 (model)", () => {
  it("keeps pending asks, saved approvals and the decision log consistent across answers and restarts", async () => {
    const base = makeTempDir()
    let run = 0
    try {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 40, size: "max" }), async (cmds) => {
          const dir = join(base, `run-${run++}`)
          const directories = [join(dir, "alpha"), join(dir, "beta")]
          for (const directory of directories) mkdirSync(directory, { recursive: true })
          const real = new Real(dir, directories)
          await real.start()
          const model: Model = { sessions: [], pending: [], saved: [], log: new Map(), asks: 0 }
          try {
            await fc.asyncModelRun(() => ({ model, real }), cmds)
          } finally {
            await real.stop(false).catch(() => undefined)
          }
        }),
        { numRuns: 60 },
      )
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })
})
