import { readFileSync, rmSync } from "node:fs"
import { join, relative } from "node:path"
import { performance } from "node:perf_hooks"
import {
  canaryRules as gatedCanaryRules,
  evaluate,
  findingsOf,
  missingCanaryRules,
  scan,
  scannedInputs,
  unscannableFiles,
  writeCanary,
  type Finding,
} from "./electronegativity"

// `npm run test:security`: runs Electronegativity over the Electron code and fails on any finding
// of a gated rule family, on parse errors, and on code the scanner cannot read. Prints one line.

const root = join(import.meta.dirname, "..", "..")
const reports = join(root, "reports")
const { version: electronVersion } = JSON.parse(
  readFileSync(join(root, "node_modules", "electron", "package.json"), "utf8"),
) as { version: string }

const canaryRuleCount = gatedCanaryRules.length

const where = (finding: Finding) => `${finding.ruleId} at ${finding.file}:${finding.line}:${finding.column}`

const countByRule = (findings: ReadonlyArray<Finding>) =>
  Object.entries(
    findings.reduce<Record<string, number>>((acc, f) => ({ ...acc, [f.ruleId]: (acc[f.ruleId] ?? 0) + 1 }), {}),
  )
    .map(([rule, count]) => (count > 1 ? `${rule}×${count}` : rule))
    .join(", ")

async function main(): Promise<number> {
  const started = performance.now()

  const canaryDir = writeCanary()
  const sarifPath = join(reports, "electronegativity.sarif")
  const [canary, result] = await Promise.all([
    scan({
      root: canaryDir,
      inputs: scannedInputs,
      sarifPath: join(reports, "electronegativity-canary.sarif"),
      electronVersion,
    }),
    scan({ root, inputs: scannedInputs, sarifPath, electronVersion }),
  ]).finally(() => rmSync(canaryDir, { recursive: true, force: true }))
  const missing = missingCanaryRules(findingsOf(canary.sarif))
  const verdict = evaluate({
    findings: findingsOf(result.sarif),
    parseErrors: result.parseErrors,
    unscannable: unscannableFiles(root),
  })
  const seconds = ((performance.now() - started) / 1000).toFixed(1)

  for (const finding of verdict.forbidden) process.stderr.write(`forbidden: ${where(finding)}: ${finding.message}\n`)
  for (const error of verdict.parseErrors) process.stderr.write(`parse error: ${error.file}: ${error.message}\n`)
  for (const file of verdict.unscannable) process.stderr.write(`not scannable (use .ts): ${file}\n`)
  for (const rule of missing) process.stderr.write(`scanner blind: the canary app no longer yields ${rule}\n`)

  const ok = verdict.ok && missing.length === 0
  const other = verdict.other.length ? ` (${countByRule(verdict.other)})` : ""
  const canaryRules = `canary ${canaryRuleCount - missing.length}/${canaryRuleCount} gated rules seen`
  process.stdout.write(
    `Electronegativity gate ${ok ? "passed" : "FAILED"}: ${result.files} files in ${scannedInputs.join(", ")}; ` +
      `${verdict.forbidden.length} gated findings, ${verdict.parseErrors.length} parse errors, ` +
      `${verdict.unscannable.length} unscannable files, ${verdict.other.length} other findings${other}; ` +
      `${canaryRules}; ${seconds} s; SARIF in ${relative(root, sarifPath)}\n`,
  )
  return ok ? 0 : 1
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `Electronegativity gate could not run: ${error instanceof Error ? error.stack : String(error)}\n`,
    )
    process.exit(1)
  },
)
