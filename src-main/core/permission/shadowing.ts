import type { PermissionRule } from "@contract/model"
import { evaluate, type Ruleset } from "./evaluate"

// Which saved approvals a configured deny makes ineffective. Pure: the caller supplies the agents
// (with their rules for the approval's project directory) and gets plain values back.
//
// D.4 step 1 evaluates the configured rules alone, and a `deny` there is final: no saved approval
// can lift it. So a saved allow `(action, resource)` does nothing for an agent whose configured rules
// evaluate that same action and resource to `deny`. The approval's resource is a pattern; it is
// evaluated as the literal resource text, exactly as a call naming that text would be. (A broad
// approval such as `bash *` that a narrower deny such as `bash rm *` cuts into is therefore not
// flagged: the approval still allows most of what it names.)

/** One agent's configured rules, in order (the last matching rule decides). */
export interface AgentRules {
  readonly agent: string
  readonly rules: Ruleset
}

/** An agent for which an approval is ineffective, and the configured rule that denies it. */
export interface Shadow {
  readonly agent: string
  readonly rule: PermissionRule
  /** Position of `rule` in the agent's rules (0-based), so a person can find it in the config. */
  readonly ruleIndex: number
}

/** Agents that count: every agent a session can run as. Hidden helpers (deny-all) never run tools. */
export function countedAgents<A extends { readonly hidden: boolean }>(agents: ReadonlyArray<A>): ReadonlyArray<A> {
  return agents.filter((agent) => !agent.hidden)
}

/** The deny that shadows `approval` for one agent, or `undefined` when the approval works there. */
export function shadowFor(
  approval: { readonly action: string; readonly resource: string },
  agent: AgentRules,
): Shadow | undefined {
  const rule = evaluate(approval.action, approval.resource, agent.rules)
  if (rule.effect !== "deny") return undefined
  // `evaluate` returns the very rule object, and the last match wins, so look from the end.
  return { agent: agent.agent, rule: { ...rule }, ruleIndex: agent.rules.lastIndexOf(rule) }
}

/** Every agent (in the given order) for which a configured deny makes `approval` ineffective. */
export function shadowsOf(
  approval: { readonly action: string; readonly resource: string },
  agents: ReadonlyArray<AgentRules>,
): ReadonlyArray<Shadow> {
  const shadows: Shadow[] = []
  for (const agent of agents) {
    const shadow = shadowFor(approval, agent)
    if (shadow) shadows.push(shadow)
  }
  return shadows
}
