import { describe, expect, it, vi } from "vitest"
import type { MenuItemConstructorOptions } from "electron"
import type { Caller } from "@main/ipc/localCaller"
import { session } from "../../renderer/support/fixtures"
import { makeTempDir } from "../../support/temp"

// Only the electron module is faked (SG-21): the menu's demo item runs the real demo code.
const installed: Array<ReadonlyArray<MenuItemConstructorOptions>> = []
const messages: Array<{ readonly message: string; readonly detail?: string }> = []
vi.mock("electron", () => ({
  Menu: {
    buildFromTemplate: (template: ReadonlyArray<MenuItemConstructorOptions>) => (installed.push(template), template),
    setApplicationMenu: () => {},
  },
  dialog: {
    showMessageBox: async (options: { message: string; detail?: string }) => (messages.push(options), {}),
    showErrorBox: (message: string, detail: string) => messages.push({ message, detail }),
  },
}))

const { installMenu } = await import("@main/electron/menu")

describe("menu", () => {
  it("offers the demo, which starts the three scripted sessions through the contract", async () => {
    const started: Array<unknown> = []
    const call = (async (method: string, payload: unknown) => {
      if (method === "agents.list") return [{ name: "build" }, { name: "plan" }, { name: "reviewer" }]
      if (method === "sessions.start") return (started.push(payload), session(started.length))
      throw new Error(`unexpected ${method}`)
    }) as Caller
    installMenu({ dataDir: makeTempDir(), call })
    const demo = installed[0]!.find((item) => item.label === "Demo")!
    const item = (demo.submenu as ReadonlyArray<MenuItemConstructorOptions>)[0]!
    ;(item.click as () => void)()
    await vi.waitFor(() => expect(messages).toHaveLength(1))
    expect(messages[0]!.message).toBe("The demo is running")
    expect(messages[0]!.detail).toContain("3 sessions started")
    expect(started.map((payload) => (payload as { agent: string }).agent)).toEqual(["build", "plan", "reviewer"])
  })
})
