import { spawn } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

// `npm run bench output`: ToolOutputStore.bound on 1 KB, 1 MB and 50 MB text outputs, time and peak
// memory above the starting point, next to a naive baseline (split into lines, write the whole
// string at once) measured in the same run. Figures are printed, never asserted.
//
// The measurements run in a child process: a fresh heap per run, `--expose-gc`, and tsx pointed
// at tsconfig.node.json so the `@core/*` aliases resolve (the runner's tsconfig.json has no paths).

const CHILD = "GATEHOUSE_OUTPUT_BENCH_CHILD"
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})

const SIZES = [
  { label: "1 KB", bytes: 1024 },
  { label: "1 MB", bytes: 1024 * 1024 },
  { label: "50 MB", bytes: 50 * 1024 * 1024 },
]

function makeText(bytes: number): string {
  const line = "2026-01-01T00:00:00Z INFO compiled module ok: src/some/where/file-name.ts (12 ms)\n"
  // Through a Buffer so the string is flat from the start: flattening a rope later would be
  // charged to whichever code first reads it.
  return Buffer.alloc(bytes, line).toString("latin1")
}

/**
 * Peak resident memory, sampled every millisecond by a worker thread, so synchronous work on the
 * main thread (which a timer there could never interrupt) is measured too.
 */
async function startRssSampler() {
  const { Worker } = await import("node:worker_threads")
  const shared = new Float64Array(new SharedArrayBuffer(16))
  const worker = new Worker(
    `const { workerData } = require("node:worker_threads")
     const peak = new Float64Array(workerData)
     setInterval(() => { const rss = process.memoryUsage.rss(); if (rss > peak[0]) peak[0] = rss }, 1)`,
    { eval: true, workerData: shared.buffer },
  )
  await new Promise((resolve) => setTimeout(resolve, 50))
  return {
    reset: () => (shared[0] = process.memoryUsage.rss()),
    peak: () => Math.max(shared[0]!, process.memoryUsage.rss()),
    stop: () => worker.terminate(),
  }
}

interface Sample {
  readonly ms: number
  /** Peak resident memory above the level right before the work started. */
  readonly rss: number
  /** Peak V8 heap + external (Buffer) memory above the start, sampled between async steps. */
  readonly heap: number
}

async function measure(sampler: Awaited<ReturnType<typeof startRssSampler>>, work: () => Promise<unknown>) {
  gc()
  const before = process.memoryUsage()
  let heap = before.heapUsed + before.external
  const sampleHeap = () => {
    const now = process.memoryUsage()
    heap = Math.max(heap, now.heapUsed + now.external)
  }
  const timer = setInterval(sampleHeap, 2)
  const start = sampler.reset()
  const started = performance.now()
  await work()
  const ms = performance.now() - started
  sampleHeap()
  clearInterval(timer)
  return { ms, rss: sampler.peak() - start, heap: heap - before.heapUsed - before.external } satisfies Sample
}

const mb = (bytes: number) => `${(Math.max(0, bytes) / 1024 / 1024).toFixed(1)} MB`
const row = (sample: Sample) =>
  `${`${sample.ms.toFixed(1)} ms`.padStart(10)} ${mb(sample.rss).padStart(9)} ${mb(sample.heap).padStart(10)}`

export default async function main(): Promise<void> {
  const file = fileURLToPath(import.meta.url)
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", file], {
      stdio: "inherit",
      env: { ...process.env, [CHILD]: "1", TSX_TSCONFIG_PATH: "tsconfig.node.json" },
    })
    child.on("error", reject)
    child.on("exit", resolve)
  })
  if (code !== 0) throw new Error(`output bench exited with code ${code}`)
}

async function run(): Promise<void> {
  const { Effect, ManagedRuntime } = await import("effect")
  const { ToolOutputStore } = await import("@core/output/ToolOutputStore")
  const { coreTestLayer } = await import("../support/layers")
  const { makeTempDir } = await import("../support/temp")
  const dataDir = makeTempDir("gatehouse-bench-")
  const runtime = ManagedRuntime.make(coreTestLayer({ dataDir }))
  try {
    const outputs = await runtime.runPromise(
      Effect.gen(function* () {
        return yield* ToolOutputStore.Service
      }),
    )
    const sampler = await startRssSampler()
    console.log("size    |  bound: time  peak RSS   heap+ext |  naive: time  peak RSS   heap+ext")
    for (const size of SIZES) {
      const text = makeText(size.bytes)
      const output = { structured: text, content: [{ type: "text" as const, text }] }
      const bound = await measure(sampler, () => runtime.runPromise(outputs.bound(output)))
      const naive = await measure(sampler, async () => {
        const lines = text.split("\n")
        writeFileSync(join(dataDir, `naive-${size.bytes}`), text)
        return lines.length
      })
      console.log(`${size.label.padEnd(7)} | ${row(bound)} | ${row(naive)}`)
    }
    console.log("1 KB is within the limits: bound returns it unchanged and writes nothing.")
    console.log("naive: split into lines, write the whole string at once. heap+ext: sampled between async steps.")
    await sampler.stop()
  } finally {
    await runtime.dispose()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.env[CHILD]) await run()
