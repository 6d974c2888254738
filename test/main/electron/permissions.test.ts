import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { describe, expect, it } from "vitest"
import { allowedPermissions, permissionCheckHandler, permissionRequestHandler } from "@main/electron/permissions"
import { IpcServer } from "@main/ipc/IpcServer"

const app = IpcServer.filesOrigin("/opt/gatehouse/out/renderer")
const index = "file:///opt/gatehouse/out/renderer/index.html"

/** Every permission name the installed Electron can ask about, read from its own type definitions. */
function electronPermissionNames(): ReadonlyArray<string> {
  const types = createRequire(import.meta.url).resolve("electron/electron.d.ts")
  const source = readFileSync(types, "utf8")
  const signature = /setPermissionRequestHandler\(handler: \(\(webContents: WebContents, permission: ([^,]+),/.exec(
    source,
  )
  if (!signature) throw new Error("setPermissionRequestHandler's signature changed; update this test")
  return [...signature[1]!.matchAll(/'([^']+)'/g)].map((match) => match[1]!)
}

describe("permissions", () => {
  const names = electronPermissionNames()

  it("knows Electron's permission names (the list the handlers are tested over)", () => {
    expect(names.length).toBeGreaterThan(30)
    expect(names).toContain("media")
    expect(names).toContain("openExternal")
  })

  it("allows only desktop notifications, the one permission the inbox uses", () => {
    expect([...allowedPermissions]).toEqual(["notifications"])
  })

  it("denies every other permission request, even from the app's own page, and notifications to others", () => {
    const handler = permissionRequestHandler(app)
    const granted = names.filter((permission) => {
      let answer: boolean | undefined
      handler(null, permission, (value) => (answer = value), { requestingUrl: index })
      expect(answer).toBeDefined()
      return answer
    })
    expect(granted).toEqual(["notifications"])
    let foreign: boolean | undefined
    handler(null, "notifications", (value) => (foreign = value), { requestingUrl: "https://evil.example/" })
    expect(foreign).toBe(false)
  })

  it("answers every other permission check with no", () => {
    const handler = permissionCheckHandler(app)
    const granted = names.filter((permission) => handler(null, permission, "file:///", { requestingUrl: index }))
    expect(granted).toEqual(["notifications"])
    expect(handler(null, "media", "https://evil.example", { requestingUrl: "https://evil.example/" })).toBe(false)
  })
})
