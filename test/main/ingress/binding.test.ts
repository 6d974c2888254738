import { assert, describe, it } from "@effect/vitest"
import { clientInfoOf, parseBinding, sourceOf, titleOf } from "@main/ingress/binding"

describe("binding", () => {
  it("reads the project and agent from the endpoint's query, agent build by default", () => {
    assert.deepStrictEqual(parseBinding(new URLSearchParams("project=%2Fsrc%2Fapp")), {
      _tag: "ok",
      binding: { project: "/src/app", agent: "build" },
    })
    assert.deepStrictEqual(parseBinding(new URLSearchParams("project=/src/app&agent=plan")), {
      _tag: "ok",
      binding: { project: "/src/app", agent: "plan" },
    })
  })

  it("refuses a missing or relative project", () => {
    assert.strictEqual(parseBinding(new URLSearchParams(""))._tag, "invalid")
    assert.strictEqual(parseBinding(new URLSearchParams("project="))._tag, "invalid")
    assert.deepStrictEqual(parseBinding(new URLSearchParams("project=src/app")), {
      _tag: "invalid",
      reason: "The project directory must be absolute: src/app",
    })
  })

  it("names the session after the client, without control characters", () => {
    const client = clientInfoOf({ clientInfo: { name: "claude\u001b[31m-code", version: "2.0.1\n" } })
    assert.deepStrictEqual(client, { name: "claude[31m-code", version: "2.0.1" })
    assert.strictEqual(sourceOf(client), "mcp:claude[31m-code")
    assert.strictEqual(titleOf(client), "claude[31m-code 2.0.1")
    assert.deepStrictEqual(clientInfoOf({}), { name: "unknown", version: "" })
    assert.strictEqual(titleOf(clientInfoOf({})), "unknown")
    assert.lengthOf(clientInfoOf({ clientInfo: { name: "x".repeat(500) } }).name, 100)
  })
})
