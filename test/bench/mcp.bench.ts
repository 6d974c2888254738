import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { Sessions } from "@core/session/Sessions"
import { ToolCalls } from "@core/session/ToolCalls"
import { McpIngress } from "@main/ingress/McpIngress"
import { makeTempDir } from "../support/temp"
import { connectClient, startHost, textOf } from "../main/ingress/support"

// `npm run bench mcp`: 50 MCP sessions over real loopback HTTP (the SDK's Streamable HTTP client
// against the real headless host), each making 100 allowed `read` calls at once-per-response pace,
// all 50 concurrently. Every call reads a line only that client and that call can get back, so a
// lost or mixed-up result cannot pass unnoticed; the `tool_call` table must hold exactly one
// completed row per call afterwards. Prints calls per second and latency percentiles.
//
// Clients and host share this process (and its two cores), so the figures are a floor.

const SESSIONS = Number(process.env.MCP_BENCH_SESSIONS ?? 50)
const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 100)

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

export default async function bench(): Promise<void> {
  const host = await startHost({ mcp: McpIngress.defaults })
  try {
    const clients = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, index) => {
        const project = makeTempDir("gatehouse-mcp-bench-")
        const lines = Array.from({ length: CALLS }, (_, call) => `client-${index} line-${call + 1}`)
        writeFileSync(join(project, "lines.txt"), `${lines.join("\n")}\n`)
        return connectClient(host, { project, name: `bench-${index}` })
      }),
    )

    const latencies: Array<number> = []
    const problems: Array<string> = []
    const started = performance.now()
    await Promise.all(
      clients.map(async ({ client }, index) => {
        for (let call = 1; call <= CALLS; call++) {
          const before = performance.now()
          const result = await client.callTool({
            name: "read",
            arguments: { path: "lines.txt", offset: call, limit: 1 },
          })
          latencies.push(performance.now() - before)
          const text = textOf(result)
          const lines = text.split("\n")
          if (
            result.isError ||
            !lines.includes(`client-${index} line-${call}`) ||
            lines.some((line) => line.startsWith("client-") && line !== `client-${index} line-${call}`)
          )
            problems.push(`client ${index} call ${call}: ${JSON.stringify(text.slice(0, 120))}`)
        }
      }),
    )
    const elapsed = performance.now() - started

    const rows = await host.run(
      Effect.gen(function* () {
        const sessions = yield* Sessions.Service
        const calls = yield* ToolCalls.Service
        const all = (yield* sessions.list()).filter((session) => session.source.startsWith("mcp:bench-"))
        return yield* Effect.forEach(all, (session) => calls.forSession(session.id))
      }),
    )
    const recorded = rows.flat()
    const completed = recorded.filter((row) => row.status === "completed").length
    for (const [index, calls] of rows.entries())
      if (new Set(calls.map((row) => row.callID)).size !== calls.length)
        problems.push(`session ${index}: repeated call ids`)

    await Promise.all(clients.map(({ client }) => client.close()))

    const sorted = [...latencies].sort((a, b) => a - b)
    const total = SESSIONS * CALLS
    console.log(`${SESSIONS} sessions × ${CALLS} calls = ${total} allowed read calls over loopback HTTP`)
    console.log(`  throughput   ${((total / elapsed) * 1000).toFixed(0)} calls/s (${(elapsed / 1000).toFixed(2)} s)`)
    console.log(
      `  latency      p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`,
    )
    console.log(
      `  results      ${latencies.length - problems.length}/${total} correct, ${problems.length} lost or mixed up`,
    )
    console.log(`  tool_call    ${completed}/${total} rows completed (${recorded.length} rows)`)
    for (const problem of problems.slice(0, 10)) console.log(`  ! ${problem}`)
    if (problems.length > 0 || completed !== total || latencies.length !== total) process.exitCode = 1
  } finally {
    await host.close()
  }
}
