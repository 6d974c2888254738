import { ShellPage } from "../pages/shell-page"
import { expect, test } from "../support/fixtures"

test.describe("headless shell", () => {
  test("loads from the printed URL, drops the token from the address bar and goes live", async ({
    page,
    host,
    cspViolations,
  }) => {
    const shell = new ShellPage(page)
    await shell.goto(host.readyUrl)
    await shell.expectConnection("live")
    expect(page.url()).toBe(`${host.url}/`)
    await expect(shell.appInfo).toContainText("headless")
    await expect(shell.problem).toHaveCount(0)
    await shell.expectView("inbox")
    expect(cspViolations).toEqual([])
  })

  test("navigates between the four views with the mouse and the keyboard", async ({ page, host, cspViolations }) => {
    const shell = new ShellPage(page)
    await shell.goto(host.readyUrl)
    await shell.expectConnection("live")
    for (const view of ["sessions", "approvals", "outputs", "inbox"] as const) {
      await shell.open(view)
      await expect(shell.view(view).getByTestId("empty-state")).toBeVisible()
    }
    await shell.navItem("inbox").focus()
    await page.keyboard.press("ArrowDown")
    await expect(shell.navItem("sessions")).toBeFocused()
    await page.keyboard.press("Enter")
    await shell.expectView("sessions")
    await expect(shell.heading).toBeFocused()
    expect(cspViolations).toEqual([])
  })

  test("blocks inline script under the host's CSP, and reports it", async ({ page, host, cspViolations }) => {
    const shell = new ShellPage(page)
    await shell.goto(host.readyUrl)
    await shell.expectConnection("live")
    // A string, because it runs in the page and this file is type-checked for Node.
    const ran = await page.evaluate(`(() => {
      const script = document.createElement("script")
      script.textContent = "document.body.dataset.inline = 'ran'"
      document.body.append(script)
      return document.body.dataset.inline === "ran"
    })()`)
    expect(ran).toBe(false)
    await expect.poll(() => cspViolations.map((violation) => violation.directive)).toContain("script-src-elem")
  })
})
