import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import type { PermissionRule } from "@contract/model"
import { evaluateInput } from "@core/permission/evaluate"
import { countedAgents, shadowFor, shadowsOf } from "@core/permission/shadowing"
import { Wildcard } from "@core/permission/Wildcard"
import { Agents } from "@core/session/Agents"
import { makeTempDir } from "../../../support/temp"
import { rule } from "./support"

const saved = (action: string, resource: string) => ({
  action,
  resource,
  effect: "allow" as const,
  approvalID: "psv_0000000000000001abcdefABCDEF" as never,
})

describe("shadowing", () => {
  it("flags an approval that a configured deny decides, with that rule and its position", () => {
    const rules = [rule("*", "*", "allow"), rule("bash", "rm *", "deny"), rule("read", "*", "allow")]
    const shadow = shadowFor({ action: "bash", resource: "rm -rf build" }, { agent: "build", rules })
    assert.deepStrictEqual(shadow, { agent: "build", rule: rule("bash", "rm *", "deny"), ruleIndex: 1 })
  })

  it("does not flag an approval that a later allow or ask overrides, nor one of another action", () => {
    const rules = [rule("bash", "*", "deny"), rule("bash", "git status *", "ask")]
    assert.isUndefined(shadowFor({ action: "bash", resource: "git status" }, { agent: "a", rules }))
    assert.isUndefined(shadowFor({ action: "edit", resource: "rm x" }, { agent: "a", rules }))
    assert.isUndefined(shadowFor({ action: "bash", resource: "ls" }, { agent: "a", rules: [] }))
  })

  it("evaluates the approval's pattern as literal resource text, so a narrower deny does not flag a broad allow", () => {
    const rules = [rule("*", "*", "allow"), rule("bash", "rm *", "deny")]
    assert.isUndefined(shadowFor({ action: "bash", resource: "*" }, { agent: "a", rules }))
    assert.isDefined(shadowFor({ action: "bash", resource: "rm *" }, { agent: "a", rules }))
  })

  it("reports the last of two identical deny rules, the one that decides", () => {
    const deny = rule("edit", "*", "deny")
    const rules = [deny, rule("edit", "*.md", "allow"), deny]
    assert.strictEqual(shadowFor({ action: "edit", resource: "a.md" }, { agent: "a", rules })?.ruleIndex, 2)
  })

  it("lists every agent that denies, in the order given", () => {
    const agents = [
      { agent: "build", rules: [rule("*", "*", "allow")] },
      { agent: "plan", rules: [rule("edit", "*", "deny")] },
      { agent: "explore", rules: [rule("*", "*", "deny")] },
    ]
    assert.deepStrictEqual(
      shadowsOf({ action: "edit", resource: "src/a.ts" }, agents).map((shadow) => shadow.agent),
      ["plan", "explore"],
    )
  })

  it("counts every agent a session can run as and leaves out the hidden helpers", () => {
    const names = countedAgents(Agents.builtins(makeTempDir())).map((agent) => agent.name)
    assert.deepStrictEqual(names, ["build", "plan", "general", "explore"])
  })

  it("flags an edit approval for plan and explore but not for build with the built-in rules", () => {
    const agents = countedAgents(Agents.builtins(makeTempDir())).map((agent) => ({
      agent: agent.name,
      rules: agent.rules,
    }))
    const shadows = shadowsOf({ action: "edit", resource: "src/main.ts" }, agents)
    assert.deepStrictEqual(
      shadows.map((shadow) => [shadow.agent, shadow.rule.action, shadow.rule.resource]),
      [
        ["plan", "edit", "*"],
        ["explore", "*", "*"],
      ],
    )
  })

  // Small alphabets so that patterns and resources collide often.
  const action = fc.constantFrom("bash", "edit", "read", "webfetch")
  const pattern = fc.constantFrom("*", "a*", "*b", "a?", "ab", "a b *", "a/*", "**/b", "?", "a *", "b")
  const resource = fc.constantFrom("a", "ab", "b", "a b", "a b c", "a/b", "x/b", "a*", "*", "?", "a ?", "rm *")
  const ruleArb = fc.record({
    action: fc.oneof(action, fc.constantFrom("*", "b*", "?dit")),
    resource: pattern,
    effect: fc.constantFrom("allow" as const, "deny" as const, "ask" as const),
  })
  const rulesArb = fc.array(ruleArb, { maxLength: 10 })

  it("flags an approval for an agent exactly when the agent's configured rules evaluate it to deny", () => {
    fc.assert(
      fc.property(action, resource, rulesArb, (act, res, rules) => {
        const shadow = shadowFor({ action: act, resource: res }, { agent: "a", rules })
        // Oracle: the last rule of the list whose patterns both match (SPEC-CORE D.3), found by hand.
        const index = rules.findLastIndex(
          (candidate: PermissionRule) =>
            Wildcard.match(act, candidate.action) && Wildcard.match(res, candidate.resource),
        )
        const denied = index >= 0 && rules[index]!.effect === "deny"
        assert.strictEqual(shadow !== undefined, denied)
        if (shadow) {
          assert.strictEqual(shadow.ruleIndex, index)
          assert.deepStrictEqual(shadow.rule, rules[index])
        }
      }),
    )
  })

  it("flags an approval exactly when a call naming its resource is still denied with the approval saved", () => {
    fc.assert(
      fc.property(action, resource, rulesArb, (act, res, rules) => {
        const flagged = shadowFor({ action: act, resource: res }, { agent: "a", rules }) !== undefined
        const decision = evaluateInput({ action: act, resources: [res], configured: rules, saved: [saved(act, res)] })
        // Flagged: the approval cannot help. Not flagged: the approval is the last match, so it allows.
        assert.strictEqual(decision.effect, flagged ? "deny" : "allow")
      }),
    )
  })
})
