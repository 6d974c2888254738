import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { chromium, type Page } from "@playwright/test"
import { Context, Effect, Exit, ManagedRuntime, Scope } from "effect"
import type { PermissionRequestId, SessionId } from "@contract/ids"
import { HttpServer } from "@main/web/HttpServer"
import { makeHostLayer, readyLine } from "@main/web/Headless"
import { Tokens } from "@core/auth/Tokens"
import { Locations } from "@core/location/Locations"
import { Projects } from "@core/session/Projects"
import { Sessions } from "@core/session/Sessions"
import { inboxHandlers, type InboxServices } from "@main/ipc/inbox"

// The inbox against the real headless host (in this process) and the built renderer in Chromium:
//
// 1. Ask → card: with 50 sessions and 1 000 pending asks, the time from `PermissionV2.ask` in the
//    core to the ask's card being in the browser's DOM (p50/p99; goal p99 < 50 ms). Each probe ask
//    carries an id dated a day back, so its session sorts first and its card renders at the top of
//    the (virtualized) list; it is answered before the next probe.
// 2. Reject a session: 1 000 pending asks of one session rejected by `permission.rejectSession`:
//    the handler's time on the server (goal < 200 ms), the time until the browser's inbox shows
//    none of them, and how many UI updates that took (goal: one batch).
// 3. Scrolling a 10 000-item inbox: the longest frame (and p95) while the list is scrolled from top
//    to bottom a viewport per frame, then jumped around.
//
// `npm run bench inbox`; needs `npm run build` first (it serves out/renderer).

const root = resolve(import.meta.dirname, "..", "..")
const rendererDir = join(root, "out", "renderer")

const chromiumPath = process.env.CHROMIUM_PATH || (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined)

const now = () => performance.timeOrigin + performance.now()

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

const ms = (value: number) => `${value.toFixed(1)} ms`

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
let probeCounter = 0

/** An ask id dated `at` (ms), unique within this run. */
function datedAskId(at: number): PermissionRequestId {
  const stamp = (BigInt(at) * 4096n + BigInt(probeCounter++ % 4096)).toString(16).padStart(16, "0")
  const random = Array.from(randomBytes(12), (byte) => BASE62[byte % 62]).join("")
  return `per_${stamp}${random}` as PermissionRequestId
}

export default async function inboxBench() {
  if (!existsSync(join(rendererDir, "index.html"))) {
    console.log("out/renderer is missing: run `npm run build` first.")
    return
  }
  const work = realpathSync(mkdtempSync(join(tmpdir(), "gatehouse-bench-inbox-")))
  const dataDir = join(work, "data")
  const project = join(work, "project")
  mkdirSync(dataDir)
  mkdirSync(project)
  writeFileSync(
    join(dataDir, "config.jsonc"),
    JSON.stringify({ agents: { build: [{ action: "bash", resource: "*", effect: "ask" }] } }),
  )
  const runtime = ManagedRuntime.make(makeHostLayer({ dataDir, port: 0, env: {}, rendererDir }))
  const scope = Scope.makeUnsafe()
  const browser = await chromium.launch({
    ...(chromiumPath ? { executablePath: chromiumPath } : {}),
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  })
  try {
    const context = await runtime.context()
    const url = Context.get(context, HttpServer.Service).url
    const token = Context.get(context, Tokens.Service).supervisor
    const run = <A, E>(
      effect: Effect.Effect<A, E, InboxServices | Locations.Service | Projects.Service | Scope.Scope>,
    ) => runtime.runPromise(effect.pipe(Scope.provide(scope)))

    const location = await run(
      Effect.gen(function* () {
        const projects = yield* Projects.Service
        const locations = yield* Locations.Service
        const created = yield* projects.ensure(project)
        return yield* locations.acquire(created.id)
      }),
    )
    const newSession = (title: string) =>
      run(
        Effect.gen(function* () {
          const sessions = yield* Sessions.Service
          return yield* sessions.create({ projectId: location.project.id, agent: "build", title, source: "runner" })
        }),
      )
    const ask = (sessionID: SessionId, command: string, id?: PermissionRequestId) =>
      run(
        location.permission.ask({
          sessionID,
          action: "bash",
          resources: [command],
          save: [command],
          metadata: { workdir: "." },
          ...(id ? { id } : {}),
        }),
      )
    const addAsks = async (sessions: number, perSession: number, prefix: string) => {
      for (let s = 0; s < sessions; s++) {
        const session = await newSession(`${prefix} ${s}`)
        for (let i = 0; i < perSession; i++) await ask(session.id, `echo ${prefix}-${s}-${i}`)
      }
    }

    let started = now()
    await addAsks(50, 20, "base")
    console.log(`setup: 1 000 asks in 50 sessions created in ${ms(now() - started)}`)

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(readyLine(url, token).slice("Gatehouse ready: ".length))
    await waitForCount(page, 1000)

    // 1. Ask → card.
    const probe = await newSession("probe")
    const latencies: Array<number> = []
    for (let i = 0; i < 200; i++) {
      const id = datedAskId(Date.now() - 86_400_000)
      await page.evaluate(`window.__gatehouseProbe = new Promise((resolve) => {
        const selector = '[data-testid="ask-card"][data-id="${id}"]'
        const at = () => performance.timeOrigin + performance.now()
        if (document.querySelector(selector)) return resolve(at())
        const observer = new MutationObserver(() => {
          if (!document.querySelector(selector)) return
          observer.disconnect()
          resolve(at())
        })
        observer.observe(document.body, { subtree: true, childList: true })
      }); 0`)
      const asked = now()
      await ask(probe.id, `echo probe-${i}`, id)
      const shown = (await page.evaluate("window.__gatehouseProbe")) as number
      latencies.push(shown - asked)
      await run(location.permission.reply({ requestID: id, reply: "once" }))
      await waitForCount(page, 1000)
    }
    console.log(
      `ask → card (50 sessions, 1 000 pending, ${latencies.length} probes): p50 ${ms(percentile(latencies, 50))}, ` +
        `p99 ${ms(percentile(latencies, 99))}, max ${ms(Math.max(...latencies))} (goal p99 < 50 ms)`,
    )

    // 2. Reject a session of 1 000 asks.
    started = now()
    const runaway = await newSession("runaway")
    for (let i = 0; i < 1000; i++) await ask(runaway.id, `echo runaway-${i}`)
    await waitForCount(page, 2000)
    console.log(`setup: 1 000 asks in one session created in ${ms(now() - started)}`)
    await page.evaluate(`window.__gatehouseCounts = []
      window.__gatehouseDone = new Promise((resolve) => {
        const inbox = document.querySelector('[data-testid="inbox"]')
        const observer = new MutationObserver(() => {
          const count = Number(inbox.dataset.count)
          window.__gatehouseCounts.push(count)
          if (count === 1000) {
            observer.disconnect()
            resolve(performance.timeOrigin + performance.now())
          }
        })
        observer.observe(inbox, { attributes: true, attributeFilter: ["data-count"] })
      }); 0`)
    const rejectStarted = now()
    const result = await run(inboxHandlers["permission.rejectSession"]({ sessionID: runaway.id }))
    const serverTime = now() - rejectStarted
    const uiDone = (await page.evaluate("window.__gatehouseDone")) as number
    const counts = (await page.evaluate("window.__gatehouseCounts")) as ReadonlyArray<number>
    console.log(
      `reject a session of ${result.rejected.length} asks: server ${ms(serverTime)} (goal < 200 ms), ` +
        `until the inbox shows none ${ms(uiDone - rejectStarted)}, UI updates ${counts.length} (goal 1)`,
    )

    // 3. Scrolling 10 000 items.
    started = now()
    await addAsks(180, 50, "many")
    await waitForCount(page, 10_000)
    console.log(`setup: 9 000 more asks in 180 sessions created and shown in ${ms(now() - started)}`)
    const frames = (await page.evaluate(`new Promise((resolve) => {
      const list = document.querySelector('[data-testid="inbox-list"]')
      const deltas = []
      let last = performance.now()
      let step = 0
      const jumps = [0.5, 0.1, 0.9, 0.3, 1]
      const tick = (time) => {
        deltas.push(time - last)
        last = time
        step++
        if (step <= 300) list.scrollTop += list.clientHeight
        else if (step - 300 <= jumps.length) list.scrollTop = jumps[step - 301] * list.scrollHeight
        else return resolve(deltas.slice(1))
        requestAnimationFrame(tick)
      }
      requestAnimationFrame((time) => { last = time; requestAnimationFrame(tick) })
    })`)) as ReadonlyArray<number>
    const cards = await page.locator('[data-testid="ask-card"]').count()
    console.log(
      `scroll 10 000 items (${frames.length} frames, ${cards} cards in the DOM): longest frame ${ms(Math.max(...frames))}, ` +
        `p95 ${ms(percentile(frames, 95))}, median ${ms(percentile(frames, 50))}`,
    )
    await page.close()
  } finally {
    await browser.close()
    await runtime.runPromise(Scope.close(scope, Exit.void))
    await runtime.dispose()
    rmSync(work, { recursive: true, force: true })
  }
}

async function waitForCount(page: Page, count: number) {
  await page.waitForSelector(`[data-testid="inbox"][data-count="${count}"]`, { timeout: 120_000 })
}
