import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import type { PermissionRequestId, SessionId } from "@contract/ids"
import {
  authorization,
  defaultName,
  nameProblem,
  parseServerUrl,
  reconcile,
  remoteMachine,
  sourceOf,
  toRequest,
} from "@core/connector/opencode/mapping"
import type { Ask } from "@core/connector/opencode/wire"

const id = "per_0000000000000001aaaaaaaaaaaa" as PermissionRequestId
const sessionID = "ses_0000000000000001aaaaaaaaaaaa" as SessionId

const ask = (over: Partial<Ask> = {}): Ask => ({
  id: "per_remote1",
  sessionID: "ses_remote1",
  permission: "bash",
  patterns: ["git status"],
  always: ["git status *"],
  metadata: { command: "git status" },
  tool: { messageID: "msg_1", callID: "call_1" },
  ...over,
})

describe("opencode/mapping", () => {
  it("maps an ask to a request: permission → action, patterns → resources, always → save, metadata and tool kept", () => {
    assert.deepStrictEqual(toRequest(ask(), id, sessionID), {
      id,
      sessionID,
      action: "bash",
      resources: ["git status"],
      save: ["git status *"],
      metadata: { command: "git status" },
      source: { type: "tool", messageID: "msg_1", callID: "call_1" },
    })
  })

  it("carries an edit's diff and leaves out what the ask does not have", () => {
    const edit = ask({
      permission: "edit",
      patterns: ["src/a.ts"],
      always: ["*"],
      metadata: { filepath: "/repo/src/a.ts", diff: "--- a\n+++ b" },
    })
    const { tool: _, ...bare } = edit
    assert.deepStrictEqual(toRequest(bare, id, sessionID), {
      id,
      sessionID,
      action: "edit",
      resources: ["src/a.ts"],
      save: ["*"],
      metadata: { filepath: "/repo/src/a.ts", diff: "--- a\n+++ b" },
    })
  })

  it("reconciles: listed asks not held arrive, held asks not listed are gone", () => {
    const diff = reconcile(["per_a", "per_b"], [ask({ id: "per_b" }), ask({ id: "per_c" }), ask({ id: "per_c" })])
    assert.deepStrictEqual(
      diff.arrived.map((entry) => entry.id),
      ["per_c"],
    )
    assert.deepStrictEqual(diff.gone, ["per_a"])
  })

  it("reconciles to exactly the server's set, whatever was held", () => {
    const ids = fc.uniqueArray(fc.stringMatching(/^per_[a-z0-9]{1,6}$/), { maxLength: 12 })
    fc.assert(
      fc.property(ids, ids, (held, listed) => {
        const diff = reconcile(
          held,
          listed.map((remote) => ask({ id: remote })),
        )
        const after = new Set([
          ...held.filter((remote) => !diff.gone.includes(remote)),
          ...diff.arrived.map((a) => a.id),
        ])
        return (
          after.size === new Set(listed).size &&
          listed.every((remote) => after.has(remote)) &&
          diff.arrived.every((a) => !held.includes(a.id)) &&
          diff.gone.every((remote) => !listed.includes(remote))
        )
      }),
    )
  })

  it("accepts http(s) addresses, normalized, and refuses credentials, queries and other schemes", () => {
    assert.deepStrictEqual(parseServerUrl(" http://127.0.0.1:4096/ "), { url: "http://127.0.0.1:4096" })
    assert.deepStrictEqual(parseServerUrl("https://box.example/opencode/"), { url: "https://box.example/opencode" })
    for (const bad of [
      "",
      "localhost:4096",
      "ftp://x",
      "http://u:p@127.0.0.1:1",
      "http://127.0.0.1:1/?a=1",
      "http://h/#x",
    ])
      assert.property(parseServerUrl(bad), "problem", bad)
  })

  it("names a server by its host and port, and checks names", () => {
    assert.strictEqual(defaultName("http://127.0.0.1:4096"), "127.0.0.1-4096")
    assert.strictEqual(defaultName("https://box.example"), "box.example-443")
    assert.strictEqual(defaultName("http://[::1]:9"), "--1-9")
    assert.isUndefined(nameProblem("build-server_2.local"))
    assert.isString(nameProblem("has space"))
    assert.isString(nameProblem(""))
    assert.isString(nameProblem("x".repeat(61)))
    assert.strictEqual(sourceOf("laptop"), "opencode:laptop")
  })

  it("sends basic auth with OpenCode's default user name, and nothing without a password", () => {
    assert.strictEqual(authorization(undefined, "s3cret"), `Basic ${Buffer.from("opencode:s3cret").toString("base64")}`)
    assert.strictEqual(authorization("me", "pw"), `Basic ${Buffer.from("me:pw").toString("base64")}`)
    assert.isUndefined(authorization("me", undefined))
    assert.isUndefined(authorization(undefined, ""))
  })

  it("treats loopback servers as this machine and any other host as another machine", () => {
    for (const url of ["http://127.0.0.1:4096", "http://127.8.9.10:1", "http://localhost:4096", "http://[::1]:4096"])
      assert.isUndefined(remoteMachine(url), url)
    assert.strictEqual(remoteMachine("http://192.0.2.7:4096"), "192.0.2.7")
    assert.strictEqual(remoteMachine("https://DevBox.example/oc"), "devbox.example")
    assert.strictEqual(remoteMachine("http://[fd00::2]:4096"), "fd00::2")
  })
})
