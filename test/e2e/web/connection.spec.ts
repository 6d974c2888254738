import { existsSync } from "node:fs"
import { join } from "node:path"
import { ShellPage } from "../pages/shell-page"
import { expect, test } from "../support/fixtures"
import { startServe } from "../support/serve"

test.describe("headless connection", () => {
  test("keeps the session after a reload, with the token gone from the URL", async ({ page, host }) => {
    const shell = new ShellPage(page)
    await shell.goto(host.readyUrl)
    await shell.expectConnection("live")
    await page.reload()
    await shell.expectConnection("live")
    expect(page.url()).not.toContain("token")
  })

  test("explains what to do when opened without the token instead of hanging", async ({ page, host }) => {
    const shell = new ShellPage(page)
    await shell.goto(`${host.url}/`)
    await shell.expectConnection("offline")
    await expect(shell.problem).toContainText("no access token")
  })

  test("does not go live with a wrong token", async ({ page, host }) => {
    const shell = new ShellPage(page)
    await shell.goto(`${host.url}/#token=${"0".repeat(64)}`)
    await shell.expectConnection("offline")
    await expect(shell.connection).not.toHaveAttribute("data-state", "live")
    expect(page.url()).not.toContain("token")
  })

  test("goes offline when the host stops and live again when it is back", async ({ page, host }) => {
    const shell = new ShellPage(page)
    await shell.goto(host.readyUrl)
    await shell.expectConnection("live")
    expect(await host.stop()).toBe(0)
    expect(existsSync(join(host.dataDir, "server.json"))).toBe(false)
    await shell.expectConnection("offline")
    // The same data directory keeps the same token; the same port keeps the page's origin.
    const again = await startServe({ dataDir: host.dataDir, port: host.port })
    try {
      await shell.expectConnection("live")
    } finally {
      await again.stop()
    }
  })
})
