import type { PermissionEffect, PermissionRule } from "@contract/model"
import { Wildcard } from "./Wildcard"

// Rule evaluation (SPEC-CORE D.3, D.4): pure functions over plain values. The service supplies the
// rule sources (the agent's configured rules, the project's saved approvals) and acts on the result.

export type Rule = PermissionRule
export type Ruleset = ReadonlyArray<Rule>

/** When no agent resolves, nothing is allowed and nothing is asked. */
export const denyEverything: Ruleset = Object.freeze([Object.freeze({ action: "*", resource: "*", effect: "deny" })])

/** `merge(...rulesets)` is plain concatenation; later rules win. */
export function merge(...rulesets: ReadonlyArray<Ruleset>): Rule[] {
  return rulesets.flat()
}

interface Compiled {
  readonly rule: Rule
  readonly action: Wildcard.Matcher
  readonly resource: Wildcard.Matcher
}

/**
 * A ruleset prepared for evaluation: every rule's matchers, plus an index so a request only visits
 * rules that can match it. Rules whose action is a plain word (most) are filed under that word and,
 * within it, under the first character their resource pattern forces (if it forces one).
 */
interface CompiledSet {
  /** The rule objects it was built from, to notice a ruleset edited in place. */
  readonly rules: ReadonlyArray<Rule>
  readonly entries: ReadonlyArray<Compiled>
  readonly byAction: ReadonlyMap<string, ActionIndex>
  /** Ascending indexes of the rules whose action pattern has a wildcard. */
  readonly wildcard: ReadonlyArray<number>
}

interface ActionIndex {
  /** First character of the resource → ascending rule indexes. */
  readonly byFirst: ReadonlyMap<number, ReadonlyArray<number>>
  /** Ascending indexes of the rules whose resource can start with anything. */
  readonly anyFirst: ReadonlyArray<number>
}

const NONE: ReadonlyArray<number> = []
const compiledSets = new WeakMap<Ruleset, CompiledSet>()

function compileSet(ruleset: Ruleset): CompiledSet {
  const entries: Compiled[] = []
  const byAction = new Map<string, { byFirst: Map<number, number[]>; anyFirst: number[] }>()
  const wildcard: number[] = []
  ruleset.forEach((rule, index) => {
    const entry = { rule, action: Wildcard.compile(rule.action), resource: Wildcard.compile(rule.resource) }
    entries.push(entry)
    if (/[*?]/.test(rule.action)) {
      wildcard.push(index)
      return
    }
    const key = Wildcard.normalize(rule.action)
    let forAction = byAction.get(key)
    if (forAction === undefined) byAction.set(key, (forAction = { byFirst: new Map(), anyFirst: [] }))
    if (entry.resource.first < 0) forAction.anyFirst.push(index)
    else {
      const list = forAction.byFirst.get(entry.resource.first)
      if (list) list.push(index)
      else forAction.byFirst.set(entry.resource.first, [index])
    }
  })
  return { rules: [...ruleset], entries, byAction, wildcard }
}

// Rulesets are evaluated many times (every rule for every call), so each array keeps its compiled
// form. It is rebuilt if the array was edited in place (a rule replaced, added or removed).
function compiledOf(ruleset: Ruleset): CompiledSet {
  let compiled = compiledSets.get(ruleset)
  if (compiled === undefined || !unchanged(compiled.rules, ruleset)) {
    compiled = compileSet(ruleset)
    compiledSets.set(ruleset, compiled)
  }
  return compiled
}

function unchanged(seen: ReadonlyArray<Rule>, ruleset: Ruleset): boolean {
  if (seen.length !== ruleset.length) return false
  for (let i = 0; i < seen.length; i++) if (seen[i] !== ruleset[i]) return false
  return true
}

/** The last rule of one compiled ruleset matching both (normalized) inputs. */
function lastIn(set: CompiledSet, action: string, resource: string): Rule | undefined {
  // Three ascending candidate lists, walked backwards together in rule order: literal action with
  // the resource's first character, literal action with any first character, wildcard action.
  const forAction = set.byAction.get(action)
  const a = (resource.length > 0 && forAction?.byFirst.get(resource.charCodeAt(0))) || NONE
  const b = forAction?.anyFirst ?? NONE
  const c = set.wildcard
  let i = a.length - 1
  let j = b.length - 1
  let k = c.length - 1
  for (;;) {
    const ai = i >= 0 ? a[i]! : -1
    const bj = j >= 0 ? b[j]! : -1
    const ck = k >= 0 ? c[k]! : -1
    if (ai > bj && ai > ck) {
      i--
      const candidate = set.entries[ai]!
      if (candidate.resource.test(resource)) return candidate.rule
    } else if (bj > ck) {
      j--
      const candidate = set.entries[bj]!
      if (candidate.resource.test(resource)) return candidate.rule
    } else if (ck >= 0) {
      k--
      const candidate = set.entries[ck]!
      if (candidate.action.test(action) && candidate.resource.test(resource)) return candidate.rule
    } else return undefined
  }
}

/**
 * The last rule, across the rulesets in argument order, whose action pattern matches `action` and
 * whose resource pattern matches `resource`; `{ action, resource: "*", effect: "ask" }` if none.
 * The returned rule is the very object from the ruleset, so callers can tell which one decided.
 */
export function evaluate(action: string, resource: string, ...rulesets: ReadonlyArray<Ruleset>): Rule {
  return lastMatch(Wildcard.normalize(action), Wildcard.normalize(resource), rulesets) ?? fallback(action)
}

function fallback(action: string): Rule {
  return { action, resource: "*", effect: "ask" }
}

function lastMatch(action: string, resource: string, rulesets: ReadonlyArray<Ruleset>): Rule | undefined {
  for (let s = rulesets.length - 1; s >= 0; s--) {
    const found = lastIn(compiledOf(rulesets[s]!), action, resource)
    if (found !== undefined) return found
  }
  return undefined
}

/** The rules whose action pattern matches `action` (what a `BlockedError` reports). */
export function relevant(action: string, rules: Ruleset): Rule[] {
  const normalized = Wildcard.normalize(action)
  return rules.filter((rule) => Wildcard.compile(rule.action).test(normalized))
}

export interface InputDecision<R extends Rule> {
  readonly effect: PermissionEffect
  /**
   * For an `allow` or `ask`, the deciding rule of each resource (in order); saved approvals that
   * appear here are the ones that decided the call. Empty for a `deny`.
   */
  readonly decisive: ReadonlyArray<Rule | R>
}

/**
 * `evaluateInput` of D.4: a configured `deny` on any resource wins before saved approvals are even
 * considered; otherwise saved approvals are appended after the configured rules (so a saved allow
 * overrides a configured `ask`) and the resources combine as deny > ask > allow.
 */
export function evaluateInput<R extends Rule>(input: {
  readonly action: string
  readonly resources: ReadonlyArray<string>
  readonly configured: Ruleset
  readonly saved: ReadonlyArray<R>
}): InputDecision<R> {
  const action = Wildcard.normalize(input.action)
  const resources = input.resources.map((resource) => Wildcard.normalize(resource))
  for (const resource of resources) {
    if (lastMatch(action, resource, [input.configured])?.effect === "deny") return { effect: "deny", decisive: [] }
  }
  const decisive = resources.map(
    (resource) => lastMatch(action, resource, [input.configured, input.saved]) ?? fallback(input.action),
  )
  const effect: PermissionEffect = decisive.some((rule) => rule.effect === "deny")
    ? "deny"
    : decisive.some((rule) => rule.effect === "ask")
      ? "ask"
      : "allow"
  return { effect, decisive }
}
