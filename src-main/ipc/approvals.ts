import { Clock, Effect, Schema } from "effect"
import type { ProjectId, SavedApprovalId } from "@contract/ids"
import {
  ActionName,
  ApprovalConflictError,
  ApprovalNotFoundError,
  InvalidPatternError,
  ProjectNotFoundError,
} from "@contract/methods"
import {
  ResourcePattern,
  type AgentInfo,
  type ApprovalEntry,
  type ApprovalOrigin,
  type Project,
  type SavedApproval,
} from "@contract/model"
import { DecisionLog } from "@core/permission/DecisionLog"
import { SavedApprovals } from "@core/permission/SavedApprovals"
import { countedAgents, shadowsOf, type AgentRules } from "@core/permission/shadowing"
import { issueLines } from "@core/schema/issues"
import { Agents } from "@core/session/Agents"
import { Projects } from "@core/session/Projects"
import type { Handlers } from "./ContractServer"

// The approvals editor's side of the contract: saved approvals with their origin and whether a
// configured deny shadows them, the configured agent rules (read-only), and the edits. Every edit
// goes through SavedApprovals, which publishes `approval.*`; the UI learns of it from the events.

/** The services the approvals handlers use. */
export type ApprovalsServices = SavedApprovals.Service | DecisionLog.Service | Agents.Service | Projects.Service

type ApprovalsMethod =
  "approvals.list" | "approvals.add" | "approvals.update" | "approvals.remove" | "approvals.export" | "agents.list"

const decodeAction = Schema.decodeUnknownExit(ActionName)
const decodeResource = Schema.decodeUnknownExit(ResourcePattern)

/** The reason a typed action or resource pattern is refused, or `undefined` when it is fine. */
export function patternProblem(field: "action" | "resource", value: string): InvalidPatternError | undefined {
  const exit = field === "action" ? decodeAction(value) : decodeResource(value)
  if (exit._tag === "Success") return undefined
  const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  const reason =
    failure && "error" in failure ? (issueLines(failure.error as Schema.SchemaError)[0]?.message ?? "") : ""
  return new InvalidPatternError({ field, reason: reason || `Invalid ${field}` })
}

const checkPattern = (field: "action" | "resource", value: string) =>
  Effect.suspend(() => {
    const problem = patternProblem(field, value)
    return problem ? Effect.fail(problem) : Effect.void
  })

/**
 * Annotates approvals with their origin (from the decision log) and the agents for which a
 * configured deny makes them ineffective. The agents that count are every agent a session can run
 * as (hidden helpers never run tools), with their rules for the approval's project directory.
 */
export const annotate = Effect.fn("Approvals.annotate")(function* (approvals: ReadonlyArray<SavedApproval>) {
  const agents = yield* Agents.Service
  const projects = yield* Projects.Service
  const log = yield* DecisionLog.Service
  const directories = new Map((yield* projects.list()).map((project) => [project.id, project.directory]))
  const rulesByProject = new Map<ProjectId, ReadonlyArray<AgentRules>>()
  const rulesFor = (projectID: ProjectId) => {
    let rules = rulesByProject.get(projectID)
    if (!rules) {
      const directory = directories.get(projectID)
      rules = countedAgents(agents.list()).map((agent) => ({
        agent: agent.name,
        rules: (directory === undefined ? agent : (agents.get(agent.name, directory) ?? agent)).rules,
      }))
      rulesByProject.set(projectID, rules)
    }
    return rules
  }
  const entries: Array<ApprovalEntry> = []
  for (const approval of approvals) {
    const ask = approval.requestID === null ? undefined : yield* log.get(approval.requestID)
    const origin: ApprovalOrigin | null = ask
      ? {
          requestID: ask.id,
          sessionID: ask.sessionID,
          agent: ask.agent,
          resources: ask.resources,
          askedAt: ask.createdAt,
        }
      : null
    entries.push({ approval, origin, shadowedBy: shadowsOf(approval, rulesFor(approval.projectID)) })
  }
  return entries
})

/** The export document: every approval with its project spelled out, so it reads without the database. */
export function exportDocument(
  approvals: ReadonlyArray<SavedApproval>,
  projects: ReadonlyArray<Project>,
  exportedAt: number,
): string {
  const byId = new Map(projects.map((project) => [project.id, project]))
  const iso = (millis: number | null) => (millis === null ? null : new Date(millis).toISOString())
  return `${JSON.stringify(
    {
      format: "gatehouse.approvals",
      version: 1,
      exportedAt: iso(exportedAt),
      approvals: approvals.map((approval) => {
        const project = byId.get(approval.projectID)
        return {
          id: approval.id,
          project: { id: approval.projectID, name: project?.name ?? null, directory: project?.directory ?? null },
          action: approval.action,
          resource: approval.resource,
          effect: "allow",
          createdAt: iso(approval.createdAt),
          requestID: approval.requestID,
          hitCount: approval.hitCount,
          lastUsedAt: iso(approval.lastUsedAt),
        }
      }),
    },
    null,
    2,
  )}\n`
}

const toInfo = (agent: Agents.Agent): AgentInfo => ({
  name: agent.name,
  description: agent.description,
  mode: agent.mode,
  hidden: agent.hidden,
  rules: agent.rules.map((rule) => ({ action: rule.action, resource: rule.resource, effect: rule.effect })),
})

const notFound = (id: SavedApprovalId) => () => new ApprovalNotFoundError({ id })
const conflict = (error: SavedApprovals.ConflictError) =>
  new ApprovalConflictError({ projectID: error.projectID, action: error.action, resource: error.resource })

export const approvalsHandlers: Pick<Handlers<ApprovalsServices>, ApprovalsMethod> = {
  "approvals.list": (input) =>
    Effect.gen(function* () {
      const saved = yield* SavedApprovals.Service
      const all = yield* saved.list(input.projectID === undefined ? {} : { projectID: input.projectID })
      const wanted = input.ids === undefined ? undefined : new Set<string>(input.ids)
      return yield* annotate(wanted ? all.filter((approval) => wanted.has(approval.id)) : all)
    }),
  "approvals.add": (input) =>
    Effect.gen(function* () {
      yield* checkPattern("action", input.action)
      yield* checkPattern("resource", input.resource)
      const saved = yield* SavedApprovals.Service
      const added = yield* saved
        .add({ projectID: input.projectID, action: input.action, resources: [input.resource] })
        .pipe(Effect.mapError((error) => new ProjectNotFoundError({ projectID: error.projectID })))
      const approval = added[0]
      if (!approval) return yield* new ApprovalConflictError({ ...input })
      return approval
    }),
  "approvals.update": (input) =>
    Effect.gen(function* () {
      yield* checkPattern("resource", input.resource)
      const saved = yield* SavedApprovals.Service
      return yield* saved.update(input.id, { resource: input.resource }).pipe(
        Effect.catchTags({
          "SavedApprovals.NotFoundError": (error) => Effect.fail(notFound(error.id as SavedApprovalId)()),
          "SavedApprovals.ConflictError": (error) => Effect.fail(conflict(error)),
        }),
      )
    }),
  "approvals.remove": (input) =>
    Effect.gen(function* () {
      const saved = yield* SavedApprovals.Service
      yield* saved.remove(input.id).pipe(Effect.mapError(notFound(input.id)))
      return null
    }),
  "approvals.export": (input) =>
    Effect.gen(function* () {
      const saved = yield* SavedApprovals.Service
      const projects = yield* Projects.Service
      const approvals = yield* saved.list(input.projectID === undefined ? {} : { projectID: input.projectID })
      return exportDocument(approvals, yield* projects.list(), yield* Clock.currentTimeMillis)
    }),
  "agents.list": () =>
    Effect.gen(function* () {
      const agents = yield* Agents.Service
      return agents.list().map(toInfo)
    }),
}

/** Reads every saved approval synchronously, for the snapshot's one `Effect.sync` (EventBus consistency rule). */
export const approvalsReader = Effect.gen(function* () {
  const saved = yield* SavedApprovals.Service
  return () => saved.listUnsafe()
})
