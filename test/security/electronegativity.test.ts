import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeTempDir } from "../support/temp"
import {
  canaryRules,
  evaluate,
  findingsOf,
  isForbiddenRule,
  missingCanaryRules,
  scan,
  unscannableFiles,
  type Finding,
} from "./electronegativity"

const sarifWith = (...ruleIds: ReadonlyArray<string>) => ({
  version: "2.1.0",
  runs: [
    {
      tool: { driver: { name: "Electronegativity", rules: [] } },
      results: ruleIds.map((ruleId, i) => ({
        ruleId,
        level: "warning",
        message: { text: `finding ${i}` },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: "src-main/x.ts" },
              region: { startLine: i + 1, startColumn: 3 },
            },
          },
        ],
      })),
    },
  ],
})

const clean = { parseErrors: [], unscannable: [] }

describe("electronegativity gate", () => {
  it("gates on rule families, ignoring the _CHECK suffix", () => {
    const gated = [
      "CONTEXT_ISOLATION_JS_CHECK",
      "NODE_INTEGRATION_JS_CHECK",
      "NODE_INTEGRATION_ATTACH_EVENT_JS_CHECK",
      "NODE_INTEGRATION_HTML_CHECK",
      "SANDBOX_JS_CHECK",
      "WEB_SECURITY_HTML_CHECK",
      "INSECURE_CONTENT_JS_CHECK",
      "EXPERIMENTAL_FEATURES_HTML_CHECK",
      "BLINK_FEATURES_JS_CHECK",
      "ALLOWPOPUPS_HTML_CHECK",
      "REMOTE_MODULE_JS_CHECK",
      "CERTIFICATE_VERIFY_PROC_JS_CHECK",
      "DANGEROUS_FUNCTIONS_JS_CHECK",
      "LIMIT_NAVIGATION_GLOBAL_CHECK",
      "PERMISSION_REQUEST_HANDLER_GLOBAL_CHECK",
    ]
    const ungated = [
      "CSP_GLOBAL_CHECK",
      "PRELOAD_JS_CHECK",
      "AUXCLICK_JS_CHECK",
      "HTTP_RESOURCES_JS_CHECK",
      "SANDBOX_JSX",
    ]
    expect(gated.filter((rule) => !isForbiddenRule(rule))).toEqual([])
    expect(ungated.filter(isForbiddenRule)).toEqual([])
  })

  it("reads rule ids and locations from a SARIF log", () => {
    expect(findingsOf(sarifWith("SANDBOX_JS_CHECK"))).toEqual([
      { ruleId: "SANDBOX_JS_CHECK", level: "warning", file: "src-main/x.ts", line: 1, column: 3, message: "finding 0" },
    ])
    expect(() => findingsOf({ version: "2.1.0" })).toThrow("no runs")
  })

  it("fails on a SARIF log with a gated finding", () => {
    const verdict = evaluate({
      findings: findingsOf(sarifWith("CSP_GLOBAL_CHECK", "CONTEXT_ISOLATION_JS_CHECK")),
      ...clean,
    })
    expect(verdict.ok).toBe(false)
    expect(verdict.forbidden.map((f) => f.ruleId)).toEqual(["CONTEXT_ISOLATION_JS_CHECK"])
    expect(verdict.other.map((f) => f.ruleId)).toEqual(["CSP_GLOBAL_CHECK"])
  })

  it("passes with only ungated findings, and fails on parse errors or unscannable files", () => {
    const findings = findingsOf(sarifWith("PRELOAD_JS_CHECK"))
    expect(evaluate({ findings, ...clean }).ok).toBe(true)
    expect(
      evaluate({ findings, parseErrors: [{ file: "a.ts", message: "Unexpected token" }], unscannable: [] }).ok,
    ).toBe(false)
    expect(evaluate({ findings, parseErrors: [], unscannable: ["src-main/x.mjs"] }).ok).toBe(false)
  })

  it("finds main and preload code in extensions the scanner skips", () => {
    const root = makeTempDir()
    mkdirSync(join(root, "src-main", "electron"), { recursive: true })
    mkdirSync(join(root, "src-preload"), { recursive: true })
    for (const file of [
      "src-main/index.ts",
      "src-main/electron/a.mjs",
      "src-main/b.cts",
      "src-preload/c.cjs",
      "src-preload/d.mts",
    ]) {
      writeFileSync(join(root, file), "")
    }
    expect([...unscannableFiles(root)].sort()).toEqual([
      "src-main/b.cts",
      "src-main/electron/a.mjs",
      "src-preload/c.cjs",
      "src-preload/d.mts",
    ])
  })

  it("reports the canary rules a scan did not yield", () => {
    const all: ReadonlyArray<Finding> = canaryRules.map((ruleId) => findingsOf(sarifWith(ruleId))[0]!)
    expect(missingCanaryRules(all)).toEqual([])
    expect(missingCanaryRules(all.filter((f) => f.ruleId !== "SANDBOX_JS_CHECK"))).toEqual(["SANDBOX_JS_CHECK"])
  })

  it("fails a real scan of code that opens an insecure window", async () => {
    const root = makeTempDir()
    mkdirSync(join(root, "src-main"), { recursive: true })
    writeFileSync(
      join(root, "src-main", "index.ts"),
      `import { BrowserWindow } from "electron"
export const open = () => new BrowserWindow({ webPreferences: { nodeIntegration: true, contextIsolation: false } })
`,
    )
    const result = await scan({
      root,
      inputs: ["src-main", "src-preload"],
      sarifPath: join(root, "reports", "scan.sarif"),
      electronVersion: "45.5.0",
    })
    const verdict = evaluate({ findings: findingsOf(result.sarif), parseErrors: result.parseErrors, unscannable: [] })
    expect(result.files).toBe(1)
    expect(verdict.ok).toBe(false)
    expect(verdict.forbidden.map((f) => f.ruleId)).toEqual(
      expect.arrayContaining(["CONTEXT_ISOLATION_JS_CHECK", "SANDBOX_JS_CHECK", "LIMIT_NAVIGATION_GLOBAL_CHECK"]),
    )
    expect(verdict.forbidden.find((f) => f.ruleId === "CONTEXT_ISOLATION_JS_CHECK")?.file).toBe("src-main/index.ts")
  }, 60_000)
})
