import type { PermissionRule } from "@contract/model"
import { evaluate } from "@core/permission/evaluate"

// Rule evaluation with the compiled, cached, linear-time Wildcard matcher against the reference's
// per-call RegExp translation of the same semantics (SPEC-CORE D.2), on the same 300-rule ruleset
// and the same 20 000 requests, in one run. Goal (PRODUCT.md "Fast"): at least 100× faster.

function referenceMatch(input: string, pattern: string): boolean {
  const normalized = input.replaceAll("\\", "/")
  let escaped = pattern
    .replaceAll("\\", "/")
    .replace(/\*\*\//g, "\x01")
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".")
    .replace(/\x01/g, "(.*/)?")
  if (escaped.endsWith(" .*")) escaped = escaped.slice(0, -3) + "( .*)?"
  return new RegExp("^" + escaped + "$", process.platform === "win32" ? "si" : "s").test(normalized)
}

function referenceEvaluate(action: string, resource: string, rules: ReadonlyArray<PermissionRule>): PermissionRule {
  return (
    rules.findLast((rule) => referenceMatch(action, rule.action) && referenceMatch(resource, rule.resource)) ?? {
      action,
      resource: "*",
      effect: "ask",
    }
  )
}

/** A small deterministic PRNG so every run measures the same work. */
function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const commands = ["git", "npm", "pnpm", "yarn", "cargo", "go", "make", "docker", "kubectl", "python", "node", "deno"]
const subcommands = ["status", "push", "run", "test", "build", "install", "log", "diff", "exec", "publish"]
const modules = ["core", "api", "ui", "db", "auth", "cli", "util", "web", "jobs", "config", "infra", "docs"]
const domains = ["github.com", "docs.rs", "npmjs.com", "developer.mozilla.org", "example.com", "pypi.org"]
const effects = ["allow", "ask", "deny"] as const

function ruleset(): PermissionRule[] {
  const pick = random(1)
  const effect = () => effects[Math.floor(pick() * 3)]!
  const rules: PermissionRule[] = [
    { action: "*", resource: "*", effect: "allow" },
    { action: "external_directory", resource: "*", effect: "ask" },
    { action: "read", resource: "*.env", effect: "ask" },
    { action: "read", resource: "*.env.*", effect: "ask" },
    { action: "read", resource: "*.env.example", effect: "allow" },
    { action: "edit", resource: "**/.env*", effect: "deny" },
  ]
  for (const command of commands)
    for (const sub of subcommands) rules.push({ action: "bash", resource: `${command} ${sub} *`, effect: effect() })
  for (const module of modules) {
    rules.push({ action: "edit", resource: `src/${module}/*`, effect: effect() })
    rules.push({ action: "edit", resource: `src/${module}/*.test.ts`, effect: effect() })
    rules.push({ action: "read", resource: `src/${module}/secrets/*`, effect: effect() })
    rules.push({ action: "edit", resource: `packages/${module}/**/generated/*`, effect: effect() })
    rules.push({ action: "glob", resource: `src/${module}/**`, effect: effect() })
    rules.push({ action: "grep", resource: `*${module}*`, effect: effect() })
  }
  for (const domain of domains) {
    rules.push({ action: "webfetch", resource: `https://${domain}/*`, effect: effect() })
    rules.push({ action: "webfetch", resource: `http://${domain}/*`, effect: "deny" })
  }
  for (let i = 0; rules.length < 290; i++)
    rules.push({ action: "external_directory", resource: `/home/user/project-${i}/*`, effect: effect() })
  rules.push(
    { action: "bash", resource: "rm *", effect: "deny" },
    { action: "bash", resource: "rm -rf *", effect: "deny" },
    { action: "bash", resource: "sudo *", effect: "deny" },
    { action: "bash", resource: "curl * | sh", effect: "deny" },
    { action: "bash", resource: "ls *", effect: "allow" },
    { action: "bash", resource: "cat ?*", effect: "allow" },
    { action: "edit", resource: "src/v?/*", effect: "ask" },
    { action: "read", resource: "*.pem", effect: "deny" },
    { action: "read", resource: "**/id_rsa*", effect: "deny" },
    { action: "todowrite", resource: "*", effect: "allow" },
  )
  return rules
}

function requests(count: number): Array<readonly [string, string]> {
  const pick = random(2)
  const one = <T>(list: ReadonlyArray<T>) => list[Math.floor(pick() * list.length)]!
  const out: Array<readonly [string, string]> = []
  for (let i = 0; i < count; i++) {
    const kind = pick()
    if (kind < 0.35) {
      const tail = pick() < 0.1 ? ` ${"--flag value ".repeat(20)}` : ` ${one(modules)} --verbose`
      out.push(["bash", `${one([...commands, "ls", "rm", "cat", "echo"])} ${one(subcommands)}${tail}`])
    } else if (kind < 0.6)
      out.push(["edit", `src/${one(modules)}/${one(["index", "service", "model"])}${one([".ts", ".test.ts", ".tsx"])}`])
    else if (kind < 0.8)
      out.push([
        "read",
        one([`src/${one(modules)}/a.ts`, ".env", "config/.env.local", ".env.example", "keys/server.pem"]),
      ])
    else if (kind < 0.9) out.push(["webfetch", `https://${one(domains)}/${one(modules)}/page?id=${i}`])
    else out.push(["external_directory", `/home/user/project-${Math.floor(pick() * 400)}/*`])
  }
  return out
}

function time(run: () => number): { ms: number; checksum: number } {
  const start = performance.now()
  const checksum = run()
  return { ms: performance.now() - start, checksum }
}

export default async function bench() {
  const rules = ruleset()
  const work = requests(20_000)
  const code = { allow: 1, ask: 2, deny: 3 }
  const ours = () => work.reduce((sum, [action, resource]) => sum + code[evaluate(action, resource, rules).effect], 0)
  const baseline = () =>
    work.reduce((sum, [action, resource]) => sum + code[referenceEvaluate(action, resource, rules).effect], 0)

  // Same answers first: the comparison is only meaningful if both implement the same semantics.
  for (const [action, resource] of work.slice(0, 2_000)) {
    const a = evaluate(action, resource, rules)
    const b = referenceEvaluate(action, resource, rules)
    if (a.effect !== b.effect || a.resource !== b.resource)
      throw new Error(`Disagreement on ${action} ${resource}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`)
  }

  ours() // warm-up (compiles every pattern once)
  const fast = [time(ours), time(ours), time(ours)].sort((x, y) => x.ms - y.ms)[1]!
  const slow = time(baseline)
  if (fast.checksum !== slow.checksum) throw new Error("The two evaluations disagree")

  const perRequest = (ms: number) => ((ms * 1000) / work.length).toFixed(2)
  console.log(`rules: ${rules.length}, requests: ${work.length}`)
  console.log(`compiled matcher:   ${fast.ms.toFixed(1)} ms (${perRequest(fast.ms)} µs/request, median of 3)`)
  console.log(`per-call RegExp:    ${slow.ms.toFixed(1)} ms (${perRequest(slow.ms)} µs/request)`)
  const ratio = slow.ms / fast.ms
  console.log(`speed-up: ${ratio.toFixed(0)}× (goal ≥ 100×) ${ratio >= 100 ? "PASS" : "BELOW GOAL"}`)
}
