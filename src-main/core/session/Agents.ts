import { realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative, sep } from "node:path"
import { Context, Effect, Layer } from "effect"
import type { PermissionRule } from "@contract/model"
import { Config } from "../config/Config"
import { DataDir } from "../config/DataDir"

export * as Agents from "./Agents"

/** The agent a session without one uses (SPEC-CORE D.4). */
export const DEFAULT_AGENT = "build"

export type Mode = "primary" | "subagent"

export interface Agent {
  readonly name: string
  readonly description: string
  readonly mode: Mode
  /** Built-in helpers (compaction, title, summary) that no one picks as a session agent. */
  readonly hidden: boolean
  /** Maximum provider turns; on the last one tools are disabled. */
  readonly steps?: number
  /** Ordered permission rules; the last matching one decides. */
  readonly rules: ReadonlyArray<PermissionRule>
}

/**
 * The agents a session can run as: the built-ins of SPEC-CORE D.10 and those defined or extended
 * in config.jsonc under `agents`. The set is fixed when the layer is built, so reads are plain
 * synchronous lookups.
 */
export interface Interface {
  /**
   * The agent called `name`, or `undefined` (callers then deny everything). With `directory` (the
   * Location's), `plan` also gets its rule allowing edits of the data directory's plans, which is
   * written relative to that directory.
   */
  readonly get: (name: string, directory?: string) => Agent | undefined
  /** Every agent, built-ins first (in D.10 order), then configured ones by name. */
  readonly list: () => ReadonlyArray<Agent>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/session/Agents") {}

const rule = (action: string, resource: string, effect: PermissionRule["effect"]): PermissionRule => ({
  action,
  resource,
  effect,
})

/** A directory as resources will name it: realpath when it exists, so it matches canonical paths. */
function canonical(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/** An agent as the service keeps it: possibly with rules that depend on the Location directory. */
export interface Definition extends Agent {
  /** Rules for one Location directory (only `plan` has one), inserted at `locationAt`. */
  readonly locationRules?: (directory: string) => ReadonlyArray<PermissionRule>
  /** Where the Location rules go: after the built-in's own rules, before configured extensions. */
  readonly locationAt?: number
}

/** The built-in agents of SPEC-CORE D.10 for a data directory and a temp directory. */
export function builtins(dataDir: string, tmpDir: string = tmpdir()): ReadonlyArray<Definition> {
  const data = canonical(dataDir)
  const tmp = canonical(tmpDir)
  const readonlyExternalDirectory = [
    rule("external_directory", "*", "ask"),
    rule("external_directory", join(data, "tool-output", "*"), "allow"),
    rule("external_directory", join(tmp, "*"), "allow"),
  ]
  const defaults = [
    rule("*", "*", "allow"),
    ...readonlyExternalDirectory,
    rule("question", "*", "deny"),
    rule("read", "*", "allow"),
    rule("read", "*.env", "ask"),
    rule("read", "*.env.*", "ask"),
    rule("read", "*.env.example", "allow"),
  ]
  const denyAll = [...defaults, rule("*", "*", "deny")]
  const planRules = [
    ...defaults,
    rule("question", "*", "allow"),
    rule("plan_exit", "*", "allow"),
    rule("external_directory", join(data, "plans", "*"), "allow"),
    rule("edit", "*", "deny"),
    rule("edit", ".opencode/plans/*.md", "allow"),
  ]
  const primary = { mode: "primary" as const, hidden: false }
  const helper = { mode: "primary" as const, hidden: true, rules: denyAll }
  return [
    {
      name: "build",
      description: "The default agent. Executes tools based on configured permissions.",
      ...primary,
      rules: [...defaults, rule("question", "*", "allow")],
    },
    {
      name: "plan",
      description: "Plan mode. Disallows all edit tools.",
      ...primary,
      rules: planRules,
      locationAt: planRules.length,
      locationRules: (directory) => [
        rule(
          "edit",
          join(relative(canonical(directory), join(data, "plans")), "*.md")
            .split(sep)
            .join("/"),
          "allow",
        ),
      ],
    },
    {
      name: "general",
      description: "General-purpose agent for multi-step tasks, run as a subagent.",
      mode: "subagent",
      hidden: false,
      rules: [...defaults, rule("todowrite", "*", "deny")],
    },
    {
      name: "explore",
      description: "Read-only agent for exploring a codebase, run as a subagent.",
      mode: "subagent",
      hidden: false,
      rules: [
        ...defaults,
        rule("*", "*", "deny"),
        rule("grep", "*", "allow"),
        rule("glob", "*", "allow"),
        rule("webfetch", "*", "allow"),
        rule("websearch", "*", "allow"),
        rule("read", "*", "allow"),
        ...readonlyExternalDirectory,
      ],
    },
    { name: "compaction", description: "Summarizes a long session so it can continue.", ...helper },
    { name: "title", description: "Names a session.", ...helper },
    { name: "summary", description: "Summarizes a session's changes.", ...helper },
  ]
}

type AgentSettings = Exclude<Config.AgentConfig, ReadonlyArray<unknown>>
const isRuleList = (value: Config.AgentConfig): value is ReadonlyArray<PermissionRule> => Array.isArray(value)

/**
 * Applies config.jsonc's `agents`: an array is shorthand for `{ permission: array }`; an entry
 * naming a built-in appends its rules after the built-in's and may override description, mode and
 * steps; any other name defines a new agent whose rules are exactly the configured ones.
 */
export function resolve(
  base: ReadonlyArray<Definition>,
  configured: Readonly<Record<string, Config.AgentConfig>> = {},
): ReadonlyArray<Definition> {
  const byName = new Map(base.map((agent) => [agent.name, agent]))
  const added: Definition[] = []
  for (const name of Object.keys(configured).sort()) {
    const value = configured[name]!
    const entry: AgentSettings = isRuleList(value) ? { permission: value } : value
    const existing = byName.get(name)
    const next: Definition = {
      ...(existing ?? { name, description: "", mode: "primary", hidden: false, rules: [] }),
      ...(entry.description !== undefined ? { description: entry.description } : {}),
      ...(entry.mode !== undefined ? { mode: entry.mode } : {}),
      ...(entry.steps !== undefined ? { steps: entry.steps } : {}),
      rules: [...(existing?.rules ?? []), ...(entry.permission ?? [])],
    }
    byName.set(name, next)
    if (!existing) added.push(next)
  }
  return [...base.map((agent) => byName.get(agent.name)!), ...added]
}

/** The service over a fixed list of agents (the live layer builds it from built-ins and config). */
export function make(agents: ReadonlyArray<Definition>): Interface {
  const byName = new Map(agents.map((agent) => [agent.name, agent]))
  const strip = ({ locationRules: _, locationAt: __, ...agent }: Definition): Agent => agent
  const listed = agents.map(strip)
  const plain = new Map(agents.map((agent, i) => [agent.name, listed[i]!]))
  // One object per agent and directory, so its rules array (and its compiled form) is reused.
  const located = new Map<string, Agent>()
  return {
    get: (name, directory) => {
      const agent = byName.get(name)
      if (agent === undefined) return undefined
      if (directory === undefined || agent.locationRules === undefined) return plain.get(name)
      const key = `${name}\0${directory}`
      let found = located.get(key)
      if (found === undefined) {
        const at = agent.locationAt ?? agent.rules.length
        found = {
          ...strip(agent),
          rules: [...agent.rules.slice(0, at), ...agent.locationRules(directory), ...agent.rules.slice(at)],
        }
        located.set(key, found)
      }
      return found
    },
    list: () => listed,
  }
}

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const config = yield* Config.Service
    const dataDir = yield* DataDir.Service
    return Service.of(make(resolve(builtins(dataDir.path), config.config.agents)))
  }),
)

/** A fixed list of agents (tests; no built-ins unless given). */
export const layerValue = (agents: ReadonlyArray<Agent>) => Layer.succeed(Service, Service.of(make(agents)))
