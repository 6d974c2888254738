import { assert, describe, it } from "@effect/vitest"
import { resolveDataDir } from "@main/app/paths"

describe("app/paths", () => {
  it("prefers GATEHOUSE_DATA_DIR, then Electron's userData, then the XDG data directory", () => {
    const home = "/home/ada"
    assert.strictEqual(
      resolveDataDir({ env: { GATEHOUSE_DATA_DIR: "/srv/gh", XDG_DATA_HOME: "/x" }, electronUserData: "/u", home }),
      "/srv/gh",
    )
    assert.strictEqual(resolveDataDir({ env: { XDG_DATA_HOME: "/x" }, electronUserData: "/u", home }), "/u")
    assert.strictEqual(resolveDataDir({ env: { XDG_DATA_HOME: "/x" }, home }), "/x/gatehouse")
    assert.strictEqual(resolveDataDir({ env: {}, home }), "/home/ada/.local/share/gatehouse")
  })

  it("ignores a relative XDG_DATA_HOME as the XDG specification requires", () => {
    assert.strictEqual(resolveDataDir({ env: { XDG_DATA_HOME: "rel" }, home: "/h" }), "/h/.local/share/gatehouse")
  })
})
