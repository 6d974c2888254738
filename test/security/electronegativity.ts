import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs"
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, relative, sep } from "node:path"

// The Electron security gate (RELIABILITY.md §1.2, §7 row 1). Electronegativity exits 0 whatever
// it finds, so the gate reads its SARIF and decides. It gates on rule ids, not severities (those
// vary with the Electron version), and it first scans a known-insecure canary app to prove the
// scanner still reports every gated rule: a renamed rule would otherwise pass silently.

/** Rule families that fail the gate (the `_CHECK` suffix of the tool's ids is ignored). */
export const forbiddenRules: ReadonlyArray<string> = [
  "CONTEXT_ISOLATION_JS",
  "NODE_INTEGRATION_*",
  "SANDBOX_JS",
  "WEB_SECURITY_*",
  "INSECURE_CONTENT_*",
  "EXPERIMENTAL_FEATURES_*",
  "BLINK_FEATURES_*",
  "ALLOWPOPUPS_HTML",
  "REMOTE_MODULE_JS",
  "CERTIFICATE_*",
  "DANGEROUS_FUNCTIONS_JS",
  "LIMIT_NAVIGATION_*",
  "PERMISSION_REQUEST_HANDLER_*",
]

export function isForbiddenRule(ruleId: string): boolean {
  const id = ruleId.toUpperCase().replace(/_CHECK$/, "")
  return forbiddenRules.some((rule) => (rule.endsWith("*") ? id.startsWith(rule.slice(0, -1)) : id === rule))
}

/** What the gate scans, relative to the project root. */
export const scannedInputs: ReadonlyArray<string> = ["src-main", "src-preload", "src-renderer/index.html"]

/** Directories whose code must stay in extensions the scanner reads. */
export const codeDirs: ReadonlyArray<string> = ["src-main", "src-preload"]

export interface Finding {
  readonly ruleId: string
  /** `warning`, or `note` for "manual review" findings. */
  readonly level: string
  readonly file: string
  readonly line: number
  readonly column: number
  readonly message: string
}

/** The results of a SARIF 2.1.0 log, as Electronegativity 1.10 writes it. Throws on any other shape. */
export function findingsOf(sarif: unknown): ReadonlyArray<Finding> {
  const runs = (sarif as { runs?: unknown })?.runs
  if (!Array.isArray(runs)) throw new Error("The SARIF log has no runs array")
  return runs.flatMap((run: { results?: unknown }) => {
    if (!Array.isArray(run.results)) throw new Error("A SARIF run has no results array")
    return run.results.map((result: SarifResult): Finding => {
      const location = result.locations?.[0]?.physicalLocation
      if (typeof result.ruleId !== "string") throw new Error("A SARIF result has no ruleId")
      return {
        ruleId: result.ruleId,
        level: String(result.level ?? "warning"),
        file: String(location?.artifactLocation?.uri ?? "N/A"),
        line: Number(location?.region?.startLine ?? 0),
        column: Number(location?.region?.startColumn ?? 0),
        message: String(result.message?.text ?? ""),
      }
    })
  })
}

/** The fields of a SARIF 2.1.0 result the gate reads; anything may be missing in a foreign log. */
interface SarifResult {
  readonly ruleId?: unknown
  readonly level?: unknown
  readonly message?: { readonly text?: unknown }
  readonly locations?: ReadonlyArray<{
    readonly physicalLocation?: {
      readonly artifactLocation?: { readonly uri?: unknown }
      readonly region?: { readonly startLine?: unknown; readonly startColumn?: unknown }
    }
  }>
}

/** `.mjs`/`.cjs`/`.mts`/`.cts` files: Electronegativity silently skips them (RELIABILITY.md §1.2). */
export function unscannableFiles(root: string, dirs: ReadonlyArray<string> = codeDirs): ReadonlyArray<string> {
  const walk = (dir: string): Array<string> =>
    existsSync(dir)
      ? readdirSync(dir).flatMap((name) => {
          const path = join(dir, name)
          return statSync(path).isDirectory() ? walk(path) : [path]
        })
      : []
  return dirs
    .flatMap((dir) => walk(join(root, dir)))
    .filter((path) => /\.(mjs|cjs|mts|cts)$/i.test(path))
    .map((path) => relative(root, path).split(sep).join("/"))
}

export interface ParseError {
  readonly file: string
  readonly message: string
}

export interface Verdict {
  readonly ok: boolean
  readonly forbidden: ReadonlyArray<Finding>
  /** Findings outside the gated families (CSP heuristics, manual-review notes, …). */
  readonly other: ReadonlyArray<Finding>
  readonly parseErrors: ReadonlyArray<ParseError>
  readonly unscannable: ReadonlyArray<string>
}

export function evaluate(input: {
  readonly findings: ReadonlyArray<Finding>
  readonly parseErrors: ReadonlyArray<ParseError>
  readonly unscannable: ReadonlyArray<string>
}): Verdict {
  const forbidden = input.findings.filter((finding) => isForbiddenRule(finding.ruleId))
  const other = input.findings.filter((finding) => !isForbiddenRule(finding.ruleId))
  const ok = forbidden.length === 0 && input.parseErrors.length === 0 && input.unscannable.length === 0
  return { ok, forbidden, other, parseErrors: input.parseErrors, unscannable: input.unscannable }
}

export interface ScanResult {
  readonly sarif: unknown
  readonly parseErrors: ReadonlyArray<ParseError>
  readonly files: number
}

// Runs the tool in a child Node process: it writes its SARIF with an unawaited fs.writeFile, so
// only the child's exit guarantees a complete file; the child also keeps the tool's globals (i18n)
// and console output out of this process, and lets two scans run in parallel.
const child = `
const [options, errorsPath] = JSON.parse(process.argv[1])
require(${JSON.stringify(createRequire(import.meta.url).resolve("@doyensec/electronegativity"))})(options).then(
  (result) => require("node:fs").writeFileSync(errorsPath, JSON.stringify(result.errors)),
  (error) => { console.error(error && error.stack || String(error)); process.exitCode = 1 },
)`

const runTool = (options: Record<string, unknown>, errorsPath: string) =>
  new Promise<void>((resolve, reject) => {
    const process_ = spawn(process.execPath, ["-e", child, JSON.stringify([options, errorsPath])], {
      stdio: ["ignore", "ignore", "pipe"],
    })
    let stderr = ""
    process_.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    process_.on("error", reject)
    process_.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`Electronegativity exited with ${code}: ${stderr.trim()}`)),
    )
  })

/**
 * Copies `inputs` (paths relative to `root`) into a temp directory with the same layout and scans
 * that in one run, so the global checks (navigation limits, permission handler) see all the code at
 * once and SARIF paths read like the project's. Writes the SARIF to `sarifPath`.
 */
export async function scan(options: {
  readonly root: string
  readonly inputs: ReadonlyArray<string>
  readonly sarifPath: string
  readonly electronVersion: string
}): Promise<ScanResult> {
  const stage = mkdtempSync(join(tmpdir(), "gatehouse-electronegativity-"))
  try {
    const input = join(stage, "app")
    for (const path of options.inputs) {
      const source = join(options.root, path)
      if (!existsSync(source)) continue
      mkdirSync(dirname(join(input, path)), { recursive: true })
      cpSync(source, join(input, path), { recursive: true })
    }
    mkdirSync(input, { recursive: true })
    const files = countScannable(input)
    mkdirSync(dirname(options.sarifPath), { recursive: true })
    const errorsPath = join(stage, "errors.json")
    await runTool(
      {
        input,
        output: options.sarifPath,
        isSarif: true,
        customScan: [],
        // It fetches Electron's release list from the network; CI has none, and currency is row 10's job.
        excludeFromScan: ["availablesecurityfixesglobalcheck"],
        isRelative: true,
        electronVersionOverride: options.electronVersion,
        parserPlugins: [],
      },
      errorsPath,
    )
    const sarif = JSON.parse(readFileSync(options.sarifPath, "utf8")) as unknown
    const errors = JSON.parse(readFileSync(errorsPath, "utf8")) as Array<{ file: string; message: string }>
    const parseErrors = errors.map((error) => ({
      file: relative(input, error.file).split(sep).join("/"),
      message: error.message,
    }))
    return { sarif, parseErrors, files }
  } finally {
    rmSync(stage, { recursive: true, force: true })
  }
}

const countScannable = (dir: string): number =>
  readdirSync(dir).reduce((count, name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return count + countScannable(path)
    return count + (/\.(js|jsx|ts|tsx|html|htm)$/i.test(name) ? 1 : 0)
  }, 0)

/**
 * A deliberately insecure app. Scanning it must report every rule family below, or the gate is
 * blind to that family and fails rather than passing vacuously.
 */
export const canary: Readonly<Record<string, string>> = {
  "src-main/index.ts": `import { app, BrowserWindow } from "electron"
export function open(a: string, b: string) {
  app.on("certificate-error", (event) => event.preventDefault())
  const window = new BrowserWindow({
    webPreferences: {
      nodeIntegration: true,
      nodeIntegrationInSubFrames: true,
      contextIsolation: false,
      sandbox: false,
      webSecurity: false,
      allowRunningInsecureContent: true,
      experimentalFeatures: true,
      enableBlinkFeatures: "CSSVariables",
      enableRemoteModule: true,
    },
  })
  eval(a + b)
  return [window, new BrowserWindow({ webPreferences: { nodeIntegration: true, contextIsolation: true } })]
}
`,
  "src-renderer/index.html": `<!doctype html><html><body><webview src="https://example.com" allowpopups></webview></body></html>
`,
}

/** Rule ids the canary must produce. */
export const canaryRules: ReadonlyArray<string> = [
  "CONTEXT_ISOLATION_JS_CHECK",
  "NODE_INTEGRATION_JS_CHECK",
  "SANDBOX_JS_CHECK",
  "WEB_SECURITY_JS_CHECK",
  "INSECURE_CONTENT_JS_CHECK",
  "EXPERIMENTAL_FEATURES_JS_CHECK",
  "BLINK_FEATURES_JS_CHECK",
  "ALLOWPOPUPS_HTML_CHECK",
  "REMOTE_MODULE_JS_CHECK",
  "CERTIFICATE_ERROR_EVENT_JS_CHECK",
  "DANGEROUS_FUNCTIONS_JS_CHECK",
  "LIMIT_NAVIGATION_GLOBAL_CHECK",
  "PERMISSION_REQUEST_HANDLER_GLOBAL_CHECK",
]

/** Writes the canary app into a fresh temp directory and returns it. */
export function writeCanary(): string {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-canary-"))
  for (const [path, content] of Object.entries(canary)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
  return dir
}

/** The canary rules the scanner did not report. */
export const missingCanaryRules = (findings: ReadonlyArray<Finding>): ReadonlyArray<string> =>
  canaryRules.filter((rule) => !findings.some((finding) => finding.ruleId === rule))
