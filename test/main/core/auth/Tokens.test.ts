import { readFileSync, statSync, chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Tokens } from "@core/auth/Tokens"
import { makeTempDir } from "../../../support/temp"

describe("Tokens", () => {
  it("creates two different 32-byte tokens in 0600 files and reuses them on the next start", () => {
    const dir = makeTempDir()
    const first = Tokens.make(dir)
    assert.match(first.agent, /^[0-9a-f]{64}$/)
    assert.match(first.supervisor, /^[0-9a-f]{64}$/)
    assert.notStrictEqual(first.agent, first.supervisor)
    for (const kind of ["agent", "supervisor"] as const) {
      const file = join(dir, Tokens.fileName(kind))
      assert.strictEqual(statSync(file).mode & 0o777, 0o600)
      assert.strictEqual(readFileSync(file, "utf8").trim(), first[kind])
    }
    const second = Tokens.make(dir)
    assert.strictEqual(second.agent, first.agent)
    assert.strictEqual(second.supervisor, first.supervisor)
  })

  it("tightens a token file that others can read and replaces a malformed one", () => {
    const dir = makeTempDir()
    const original = Tokens.make(dir)
    chmodSync(join(dir, "agent.token"), 0o644)
    writeFileSync(join(dir, "supervisor.token"), "not-a-token")
    const again = Tokens.make(dir)
    assert.strictEqual(again.agent, original.agent)
    assert.strictEqual(statSync(join(dir, "agent.token")).mode & 0o777, 0o600)
    assert.match(again.supervisor, /^[0-9a-f]{64}$/)
    assert.notStrictEqual(again.supervisor, original.supervisor)
  })

  it("admits each door only with its own token", () => {
    const tokens = Tokens.make(makeTempDir())
    assert.isTrue(tokens.verify("agent", tokens.agent))
    assert.isTrue(tokens.verify("supervisor", tokens.supervisor))
    assert.isFalse(tokens.verify("agent", tokens.supervisor))
    assert.isFalse(tokens.verify("supervisor", tokens.agent))
    for (const wrong of [
      undefined,
      null,
      "",
      tokens.agent.slice(0, 63),
      tokens.agent.toUpperCase(),
      `${tokens.agent} `,
    ])
      assert.isFalse(tokens.verify("agent", wrong))
  })
})
