import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { denyEverything, evaluate, evaluateInput, merge, relevant } from "@core/permission/evaluate"
import { Wildcard } from "@core/permission/Wildcard"
import { Agents } from "@core/session/Agents"
import { makeTempDir } from "../../../support/temp"
import { rule } from "./support"

const savedRule = (action: string, resource: string, id: string) => ({
  ...rule(action, resource, "allow"),
  effect: "allow" as const,
  approvalID: id as never,
})

describe("evaluate", () => {
  it("takes the last matching rule across rulesets in argument order", () => {
    const first = [rule("*", "*", "allow"), rule("bash", "rm *", "deny")]
    const second = [rule("bash", "rm -i *", "ask")]
    assert.strictEqual(evaluate("bash", "rm -rf /", first, second).effect, "deny")
    assert.strictEqual(evaluate("bash", "rm -i x", first, second), second[0])
    assert.strictEqual(evaluate("bash", "ls", first, second), first[0])
  })

  it("asks when nothing matches", () => {
    assert.deepStrictEqual(evaluate("bash", "pwd"), { action: "bash", resource: "*", effect: "ask" })
    assert.deepStrictEqual(evaluate("bash", "pwd", [rule("read", "*", "allow")]), {
      action: "bash",
      resource: "*",
      effect: "ask",
    })
  })

  it("merges by plain concatenation", () => {
    const a = [rule("a", "*", "allow")]
    const b = [rule("b", "*", "deny")]
    assert.deepStrictEqual(merge(a, b), [...a, ...b])
  })

  it("allows bash pwd under * * allow and asks with no rules (G.48)", () => {
    assert.strictEqual(evaluate("bash", "pwd", [rule("*", "*", "allow")]).effect, "allow")
    assert.strictEqual(evaluate("bash", "pwd", []).effect, "ask")
  })

  it("allows reading tool_123 while denying its external directory under * * deny + read * allow (G.46)", () => {
    const rules = [rule("*", "*", "deny"), rule("read", "*", "allow")]
    assert.strictEqual(evaluate("read", "tool_123", rules).effect, "allow")
    assert.strictEqual(evaluate("external_directory", "/tmp/tool-output/*", rules).effect, "deny")
  })

  it("follows a ruleset edited in place (compiled matchers are refreshed)", () => {
    const rules = [rule("read", "*", "allow")]
    assert.strictEqual(evaluate("read", "a", rules).effect, "allow")
    rules[0] = rule("read", "*", "deny")
    assert.strictEqual(evaluate("read", "a", rules).effect, "deny")
    rules.push(rule("read", "a", "ask"))
    assert.strictEqual(evaluate("read", "a", rules).effect, "ask")
  })

  it("picks the same rule as a plain findLast over the flattened rulesets (its index changes nothing)", () => {
    const word = fc.constantFrom("read", "edit", "bash", "Read", "*", "?ead", "re*", "", " *", "b")
    const pattern = fc.constantFrom(
      "*",
      "",
      " *",
      "a",
      "a *",
      "ab",
      "a?",
      "*b",
      "**/b",
      "b/**/a",
      "?",
      "a*b",
      " a",
      "\\a",
    )
    const ruleArb = fc.record({
      action: word,
      resource: pattern,
      effect: fc.constantFrom("allow" as const, "deny" as const, "ask" as const),
    })
    const input = fc.constantFrom("", "a", "ab", "a b", "b/a", "b", " a", "\\a", "/a", "a/b")
    fc.assert(
      fc.property(
        fc.array(fc.array(ruleArb, { maxLength: 8 }), { maxLength: 3 }),
        word,
        input,
        (rulesets, action, resource) => {
          const naive = rulesets
            .flat()
            .findLast((r) => Wildcard.match(action, r.action) && Wildcard.match(resource, r.resource)) ?? {
            action,
            resource: "*",
            effect: "ask",
          }
          const found = evaluate(action, resource, ...rulesets)
          assert.deepStrictEqual(found, naive)
          if (rulesets.flat().includes(naive as never)) assert.strictEqual(found, naive)
        },
      ),
      { numRuns: 5_000 },
    )
  })

  it("reports the rules whose action matches", () => {
    const rules = [rule("*", "*", "allow"), rule("bash", "rm *", "deny"), rule("read", "*", "deny")]
    assert.deepStrictEqual(relevant("bash", rules), [rules[0], rules[1]])
  })
})

describe("evaluateInput", () => {
  it("lets a saved approval allow what configured rules only ask (G.49)", () => {
    const result = evaluateInput({
      action: "bash",
      resources: ["pwd"],
      configured: [rule("bash", "*", "ask")],
      saved: [savedRule("bash", "pwd", "psv_1")],
    })
    assert.strictEqual(result.effect, "allow")
    assert.strictEqual((result.decisive[0] as { approvalID?: string }).approvalID, "psv_1")
  })

  it("never lets a saved approval override a configured deny on any resource", () => {
    const result = evaluateInput({
      action: "bash",
      resources: ["ls", "pwd"],
      configured: [rule("bash", "pwd", "deny")],
      saved: [savedRule("bash", "*", "psv_1"), savedRule("bash", "pwd", "psv_2")],
    })
    assert.strictEqual(result.effect, "deny")
  })

  it("combines resources as deny over ask over allow", () => {
    const configured = [rule("edit", "*", "allow"), rule("edit", "secret/*", "ask"), rule("edit", "vault/*", "deny")]
    const effect = (...resources: string[]) =>
      evaluateInput({ action: "edit", resources, configured, saved: [] }).effect
    assert.strictEqual(effect("a.ts", "b.ts"), "allow")
    assert.strictEqual(effect("a.ts", "secret/x"), "ask")
    assert.strictEqual(effect("secret/x", "vault/y", "a.ts"), "deny")
    assert.strictEqual(effect(), "allow")
  })

  it("denies everything with the fallback ruleset", () => {
    for (const action of ["read", "bash", "question", "external_directory"])
      assert.strictEqual(
        evaluateInput({
          action,
          resources: ["x"],
          configured: denyEverything,
          saved: [savedRule(action, "*", "psv_1")],
        }).effect,
        "deny",
      )
  })
})

describe("evaluate with the built-in agents (D.10)", () => {
  const data = makeTempDir()
  const tmp = makeTempDir()
  const agents = Agents.make(Agents.builtins(data, tmp))
  const build = agents.get("build")!.rules

  it("asks before reading .env files anywhere but allows .env.example and other files", () => {
    assert.strictEqual(evaluate("read", "src/main.ts", build).effect, "allow")
    assert.strictEqual(evaluate("read", ".env", build).effect, "ask")
    assert.strictEqual(evaluate("read", "src/.env", build).effect, "ask")
    assert.strictEqual(evaluate("read", ".env.local", build).effect, "ask")
    assert.strictEqual(evaluate("read", ".env.example", build).effect, "allow")
  })

  it("allows external managed tool output and temp files but asks for other external directories", () => {
    assert.strictEqual(evaluate("external_directory", `${join(data, "tool-output")}/*`, build).effect, "allow")
    assert.strictEqual(evaluate("external_directory", `${tmp}/*`, build).effect, "allow")
    assert.strictEqual(evaluate("external_directory", "/etc/*", build).effect, "ask")
  })

  it("lets build ask questions while general is denied todowrite and explore only reads", () => {
    assert.strictEqual(evaluate("question", "*", build).effect, "allow")
    assert.strictEqual(evaluate("question", "*", agents.get("general")!.rules).effect, "deny")
    assert.strictEqual(evaluate("todowrite", "*", agents.get("general")!.rules).effect, "deny")
    const explore = agents.get("explore")!.rules
    assert.strictEqual(evaluate("edit", "a.ts", explore).effect, "deny")
    assert.strictEqual(evaluate("grep", "TODO", explore).effect, "allow")
    assert.strictEqual(evaluate("read", ".env", explore).effect, "allow")
    assert.strictEqual(evaluate("external_directory", "/etc/*", explore).effect, "ask")
  })
})
