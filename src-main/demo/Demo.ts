import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import type { Method } from "@contract/channels"
import type { PayloadOf, SuccessOf } from "@contract/methods"
import type { Session } from "@contract/model"
import { Config } from "@core/config/Config"
import { checklistPage, sampleFiles } from "./sample"

// `npm run demo` and the app's "Start the demo" menu item: a sample project, a local page to fetch,
// and three scripted sessions (build, plan and a custom `reviewer` agent) whose asks reach the
// inbox within seconds. Everything goes through the contract (`agents.list`, `sessions.start`), so
// the same code drives the headless host over its WebSocket and the Electron app in-process.

/** Calls one contract method; rejects with its error (the WebSocket client, or the app's handlers). */
export type Caller = <M extends Method>(method: M, payload: PayloadOf<M>) => Promise<SuccessOf<M>>

/** The demo's own agent, defined by {@link demoConfig}. */
export const REVIEWER = "reviewer"

/**
 * config.jsonc for a data directory made for the demo. The built-in `build` agent allows edits and
 * commands; here it asks first, so they show up in the inbox. `reviewer` is a custom agent.
 */
export const demoConfig = `// Written by Gatehouse's demo for its own data directory.
{
  "agents": {
    // The built-in build agent edits and runs commands freely; in the demo it asks first.
    "build": [
      { "action": "edit", "resource": "*", "effect": "ask" },
      { "action": "bash", "resource": "*", "effect": "ask" }
    ],
    // A custom agent: reads and searches freely, asks before anything else, never reads .env.
    "${REVIEWER}": {
      "description": "Reviews the project against a checklist; asks before anything but reading and searching.",
      "steps": 10,
      "permission": [
        { "action": "*", "resource": "*", "effect": "ask" },
        { "action": "read", "resource": "*", "effect": "allow" },
        { "action": "grep", "resource": "*", "effect": "allow" },
        { "action": "glob", "resource": "*", "effect": "allow" },
        { "action": "read", "resource": "*.env", "effect": "deny" }
      ]
    }
  }
}
`

/**
 * Writes {@link demoConfig} as the data directory's config.jsonc when there is none (and
 * GATEHOUSE_CONFIG names no other file); an existing configuration is never touched. Returns
 * whether it wrote it. Call it before the app starts: agents are read once, at start-up.
 */
export function writeDemoConfig(dataDir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const file = Config.resolveFile(dataDir, env)
  if (file !== join(dataDir, "config.jsonc") || existsSync(file)) return false
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(file, demoConfig)
  return true
}

/** `resources/demo` of this checkout (from the sources or the built `out/main`). */
export function scriptsDirectory(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const candidate = join(dir, "resources", "demo")
    if (existsSync(join(candidate, "build.jsonl"))) return candidate
    if (dirname(dir) === dir) throw new Error(`Cannot find resources/demo above ${from}`)
  }
}

/**
 * Writes the sample project into `directory` (created when missing). A directory that holds
 * anything else than a previous demo project is refused, so the demo never overwrites real work.
 */
export function createSampleProject(directory: string): string {
  mkdirSync(directory, { recursive: true })
  const entries = readdirSync(directory)
  if (entries.length > 0 && !existsSync(join(directory, "src", "greet.js")))
    throw new Error(`${directory} is not empty: give the demo a new or empty directory`)
  for (const [path, content] of Object.entries(sampleFiles)) {
    mkdirSync(dirname(join(directory, path)), { recursive: true })
    writeFileSync(join(directory, path), content)
  }
  return realpathSync(directory)
}

export interface PageServer {
  readonly url: string
  readonly close: () => Promise<void>
}

/** Serves the checklist page on 127.0.0.1 (any free port) for the reviewer's webfetch. */
export function startPageServer(): Promise<PageServer> {
  const server = createServer((req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405).end()
      return
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    res.end(req.method === "HEAD" ? undefined : checklistPage)
  })
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolvePromise({
        url: `http://127.0.0.1:${port}/checklist.html`,
        close: () =>
          new Promise((done) => {
            server.close(() => done())
            server.closeAllConnections()
          }),
      })
    })
  })
}

export interface DemoOptions {
  /** Where the demo's resolved scripts are written (`<data dir>/demo/`). */
  readonly dataDir: string
  /** The sample project's directory; default a fresh temporary one. */
  readonly directory?: string | undefined
  readonly call: Caller
  /** Where the scripts are read from (default `resources/demo`). */
  readonly scripts?: string
}

export interface Demo {
  /** The sample project's canonical directory. */
  readonly directory: string
  readonly pageUrl: string
  readonly sessions: ReadonlyArray<Session>
  /** Notes for the person (e.g. an agent that had to be replaced). */
  readonly notes: ReadonlyArray<string>
  /** Stops the page server (the sessions belong to the app). */
  readonly close: () => Promise<void>
}

interface Plan {
  readonly script: string
  readonly agent: string
  readonly title: string
  readonly prompt: string
}

const plans: ReadonlyArray<Plan> = [
  { script: "build.jsonl", agent: "build", title: "Fix the greeting", prompt: "The greeting test fails; fix it." },
  {
    script: "plan.jsonl",
    agent: "plan",
    title: "Plan the configuration file",
    prompt: "Plan moving the settings out of .env.",
  },
  {
    script: "review.jsonl",
    agent: REVIEWER,
    title: "Review against the release checklist",
    prompt: "Review the project against the release checklist.",
  },
]

/** Creates the sample project, serves the page and starts the three scripted sessions. */
export async function startDemo(options: DemoOptions): Promise<Demo> {
  const directory = createSampleProject(
    options.directory ? resolve(options.directory) : mkdtempSync(join(tmpdir(), "gatehouse-demo-")),
  )
  const page = await startPageServer()
  try {
    const source = options.scripts ?? scriptsDirectory()
    const target = join(options.dataDir, "demo")
    mkdirSync(target, { recursive: true })
    const agents = new Set((await options.call("agents.list", undefined)).map((agent) => agent.name))
    const notes: Array<string> = []
    const sessions: Array<Session> = []
    for (const plan of plans) {
      const script = join(target, plan.script)
      writeFileSync(script, readFileSync(join(source, plan.script), "utf8").replaceAll("${PAGE_URL}", page.url))
      // Agents are read when the app starts: one started with another config may lack the demo's.
      const agent = agents.has(plan.agent) ? plan.agent : "build"
      if (agent !== plan.agent)
        notes.push(
          `This Gatehouse has no "${plan.agent}" agent (see the demo's config.jsonc); "${agent}" runs instead.`,
        )
      sessions.push(
        await options.call("sessions.start", {
          project: directory,
          agent,
          title: plan.title,
          prompt: plan.prompt,
          provider: { type: "scripted", script },
        }),
      )
    }
    return { directory, pageUrl: page.url, sessions, notes, close: page.close }
  } catch (error) {
    await page.close()
    throw error
  }
}
