import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { Headless } from "@main/web/Headless"
import { startHeadless } from "@main/web/Headless"
import { connect } from "@main/cli/client"
import { runCli } from "@main/cli/commands"
import type { Io } from "@main/cli/io"
import { exitCodeFor, parseRunArgs } from "@main/cli/run"
import { makeTempDir } from "../../support/temp"
import { makeRendererDir } from "../web/http"

const dataDir = makeTempDir()
const project = makeTempDir()
let host: Headless

beforeAll(async () => {
  // bash asks, so a test can decline it.
  writeFileSync(
    join(dataDir, "config.jsonc"),
    JSON.stringify({ agents: { build: [{ action: "bash", resource: "*", effect: "ask" }] } }),
  )
  writeFileSync(join(project, "notes.txt"), "hello\n")
  host = await startHeadless({ dataDir, port: 0, env: {}, rendererDir: makeRendererDir(makeTempDir()) })
})
afterAll(() => host.close())

/** An Io that records what the command prints, for the data directory given. */
const recordingIo = (env: NodeJS.ProcessEnv = { GATEHOUSE_DATA_DIR: dataDir }, cwd = project) => {
  const out: Array<string> = []
  const err: Array<string> = []
  const io: Io = { stdout: (line) => out.push(line), stderr: (line) => err.push(line), env, cwd }
  return { io, out, err }
}

const writeScript = (...lines: ReadonlyArray<object>) => {
  const file = join(makeTempDir(), "script.jsonl")
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n"))
  return file
}

describe("gatehouse run", () => {
  it("starts a session in the running host and prints its id and where to follow it", async () => {
    const { io, out, err } = recordingIo()
    const script = writeScript({ text: "Nothing to do." })
    const code = await runCli(["run", "--provider", "scripted", "--script", script, "--title", "From the CLI"], io)
    assert.strictEqual(code, 0, err.join("\n"))
    const id = /^Started session (ses_\w+) \(agent build, provider scripted\)$/.exec(out[0] ?? "")?.[1]
    assert.isDefined(id, out.join("\n"))
    assert.strictEqual(out[1], `Follow it in Gatehouse: ${host.url}/`)

    const client = await connect({ ...host, pid: process.pid })
    const snapshot = await client.call("app.snapshot", undefined)
    client.close()
    const session = snapshot.sessions.find((candidate) => candidate.id === id)
    assert.deepStrictEqual(session && [session.title, session.source, session.provider], [
      "From the CLI",
      "runner",
      "scripted",
    ])
    assert.strictEqual(snapshot.projects.find((candidate) => candidate.id === session?.projectId)?.directory, project)
  })

  it("with --wait follows the session and exits 0 when it ends idle", async () => {
    const { io, out } = recordingIo()
    const script = writeScript(
      { toolCalls: [{ name: "read", input: { path: "notes.txt" } }] },
      { text: "Read it.", expect: { results: [{ contains: "hello" }] } },
    )
    const code = await runCli(["run", "--provider", "scripted", "--script", script, "--wait"], io)
    assert.strictEqual(code, 0, out.join("\n"))
    assert.include(out, '  read {"path":"notes.txt"}')
    assert.strictEqual(out.at(-1), "idle")
  })

  it("with --wait exits 1 when the session fails, printing why", async () => {
    const { io, out } = recordingIo()
    const script = writeScript(
      { toolCalls: [{ name: "read", input: { path: "missing.txt" } }] },
      { text: "Read it.", expect: { results: [{ type: "text" }] } },
    )
    const code = await runCli(["run", "--provider", "scripted", "--script", script, "--wait"], io)
    assert.strictEqual(code, 1)
    assert.match(out.at(-1)!, /^failed: scripted provider: .*script\.jsonl line 2: expected the result of read/)
  })

  it("with --wait exits 1 when the person declines", async () => {
    const client = await connect({ ...host, pid: process.pid })
    client.onEvent(({ event }) => {
      if (event._tag === "permission.v2.asked")
        void client.call("permission.reply", { requestID: event.request.id, reply: "reject" })
    })
    const { io, out } = recordingIo()
    const script = writeScript({ toolCalls: [{ name: "bash", input: { command: "echo hi" } }] }, { text: "never" })
    const code = await runCli(["run", "--provider", "scripted", "--script", script, "--wait"], io)
    client.close()
    assert.strictEqual(code, 1)
    assert.include(out, "blocked")
    assert.strictEqual(out.at(-1), "declined: The user rejected permission to use this specific tool call.")
  })

  it("reports a session that cannot start with the reason", async () => {
    const { io, err } = recordingIo()
    const code = await runCli(["run", "--provider", "scripted", "--script", join(project, "none.jsonl")], io)
    assert.strictEqual(code, 1)
    assert.match(err.join("\n"), /Cannot start the session: Cannot use provider scripted: cannot read the script/)
  })

  it("says clearly that Gatehouse is not running when nothing serves the data directory", async () => {
    const empty = makeTempDir()
    const missing = recordingIo({ GATEHOUSE_DATA_DIR: empty })
    assert.strictEqual(await runCli(["run", "--provider", "scripted", "--script", "s.jsonl"], missing.io), 1)
    assert.strictEqual(
      missing.err[0],
      `Gatehouse is not running for ${empty}: there is no server.json. Start it with \`npm start\` or \`npm run serve\` (or set GATEHOUSE_DATA_DIR to its data directory).`,
    )

    // A host killed without cleaning up leaves server.json behind; its process is gone.
    writeFileSync(join(empty, "server.json"), JSON.stringify({ url: "http://127.0.0.1:9", port: 9, pid: 2 ** 22 + 7 }))
    const stale = recordingIo({ GATEHOUSE_DATA_DIR: empty })
    assert.strictEqual(await runCli(["run", "--provider", "scripted", "--script", "s.jsonl"], stale.io), 1)
    assert.match(stale.err[0]!, /server\.json names process \d+, which has exited/)
  })

  it("rejects a wrong command line with the usage and exit code 2", async () => {
    for (const argv of [
      ["run"],
      ["run", "--provider", "scripted"],
      ["run", "--provider", "other"],
      ["run", "--provider", "openai-compatible", "--base-url", "http://x"],
      ["run", "--provider", "openai-compatible", "--prompt", "hi", "--model", "m"],
      ["run", "--provider", "openai-compatible", "--prompt", "hi", "--name", "local", "--model", "m"],
      ["run", "--provider", "scripted", "--script", "a", "--model", "m"],
      ["run", "--bogus"],
      ["nope"],
      [],
    ]) {
      const { io, out, err } = recordingIo()
      assert.strictEqual(await runCli(argv, io), 2, argv.join(" "))
      assert.include([...out, ...err].join("\n"), "Usage:", argv.join(" "))
    }
  })
})

describe("parseRunArgs", () => {
  const io = { cwd: "/work/here", env: { MY_KEY: " sk-local " } }

  it("resolves the project and script against the working directory", () => {
    const args = parseRunArgs(["--provider", "scripted", "--script", "s.jsonl", "--agent", "plan", "--wait"], io)
    assert.deepStrictEqual(args, {
      input: {
        project: "/work/here",
        agent: "plan",
        title: "s.jsonl",
        provider: { type: "scripted", script: "/work/here/s.jsonl" },
      },
      wait: true,
    })
    assert.strictEqual(
      parseRunArgs(["--project", "../p", "--provider", "scripted", "--script", "/abs.jsonl"], io).input.project,
      "/work/p",
    )
  })

  it("sends the key from this shell when --api-key-env names a variable set here, else the variable's name", () => {
    const base = [
      "--provider",
      "openai-compatible",
      "--prompt",
      "hi",
      "--base-url",
      "http://127.0.0.1:1/v1",
      "--model",
      "m",
    ]
    assert.deepStrictEqual(parseRunArgs([...base, "--api-key-env", "MY_KEY", "--stream"], io).input.provider, {
      type: "openai-compatible",
      base_url: "http://127.0.0.1:1/v1",
      model: "m",
      api_key: "sk-local",
      stream: true,
    })
    assert.deepStrictEqual(parseRunArgs([...base, "--api-key-env", "THEIRS"], io).input.provider, {
      type: "openai-compatible",
      base_url: "http://127.0.0.1:1/v1",
      model: "m",
      api_key_env: "THEIRS",
    })
    assert.deepStrictEqual(
      parseRunArgs(["--provider", "openai-compatible", "--prompt", "hi", "--name", "local"], io).input.provider,
      { type: "openai-compatible", name: "local" },
    )
  })

  it("maps a finished session to the exit code of --wait", () => {
    assert.deepStrictEqual((["idle", "stopped", "failed", "declined"] as const).map(exitCodeFor), [0, 0, 1, 1])
  })
})
