import { assert, describe, it } from "@effect/vitest"
import { parseServeArgs } from "@main/web/args"

describe("parseServeArgs", () => {
  it("reads --port N and --port=N, and nothing means the configured port", () => {
    assert.deepStrictEqual(parseServeArgs([]), {})
    assert.deepStrictEqual(parseServeArgs(["--port", "0"]), { port: 0 })
    assert.deepStrictEqual(parseServeArgs(["--port=8080"]), { port: 8080 })
  })

  it("rejects ports that are not integers from 0 to 65535, and unknown arguments", () => {
    for (const argv of [["--port"], ["--port", "-1"], ["--port", "65536"], ["--port", "80.5"], ["--port", "0x10"]]) {
      assert.throws(() => parseServeArgs(argv), /--port needs a number from 0 to 65535/, argv.join(" "))
    }
    assert.throws(() => parseServeArgs(["--host", "0.0.0.0"]), /Unknown argument "--host"/)
  })
})
