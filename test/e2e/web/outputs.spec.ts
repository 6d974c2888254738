import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page, TestInfo } from "@playwright/test"
import { OutputsPage } from "../pages/outputs-page"
import { SessionsPage } from "../pages/sessions-page"
import { test as base, expect } from "../support/fixtures"
import { bashTurn, connectContract, makeProject, startScripted, type ContractClient } from "../support/sessions"

// Outputs journeys against the real headless host: a real bash call prints more than 2000 lines,
// so the core spills it to a managed file that the browser pages and searches through the contract.

const attach = async (testInfo: TestInfo, page: Page, name: string) =>
  testInfo.attach(name, { body: await page.screenshot({ fullPage: true }), contentType: "image/png" })

// The built-in build agent allows bash; no config is written, so nothing asks.
const test = base.extend<{ readonly agents: ContractClient; readonly projects: string }>({
  agents: async ({ host }, use) => {
    const client = await connectContract(host)
    await use(client)
    client.close()
  },
  // eslint-disable-next-line no-empty-pattern
  projects: async ({}, use) => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "gatehouse-projects-")))
    await use(root)
    rmSync(root, { recursive: true, force: true })
  },
})

test.describe("outputs", () => {
  test("opens a spilled output from the timeline, searches it, pages through it and deletes it", async ({
    page,
    host,
    agents,
    projects,
    cspViolations,
  }, testInfo) => {
    const outputs = new OutputsPage(page)
    await outputs.shell.goto(host.readyUrl)
    await outputs.shell.expectConnection("live")
    await outputs.open()
    await expect(outputs.view.getByTestId("empty-state")).toBeVisible()

    await startScripted(agents, makeProject(projects, "alpha"), [bashTurn(["seq 1 5000"])], "Noisy")
    await expect(outputs.rows).toHaveCount(1)
    // The bash tool's output is the 5000 numbers plus its own framing; the core counted it.
    const [kept] = await agents.ok<ReadonlyArray<{ path: string; lines: number; bytes: number }>>("outputs.list", {})
    expect(kept!.lines).toBeGreaterThanOrEqual(5000)
    const row = outputs.rows.first()
    await expect(row.getByTestId("output-lines")).toHaveText(kept!.lines.toLocaleString("en-US"))
    await expect(row.getByTestId("output-bytes")).toContainText(`${kept!.bytes.toLocaleString("en-US")} B`)
    await expect(row.getByTestId("output-retention")).toHaveText("expires in 7 days")
    await expect(row.getByTestId("output-session")).toHaveText("Noisy")
    await attach(testInfo, page, "outputs-table")

    // The timeline links the call to its full output.
    const sessions = new SessionsPage(page)
    await sessions.open()
    await sessions.openSession("Noisy")
    await expect(sessions.toolCall("bash")).toHaveAttribute("data-status", "completed")
    await sessions.toolCall("bash").getByTestId("tool-call-output").click()
    await outputs.shell.expectView("outputs")
    await outputs.expectPage(0)
    await expect(outputs.range).toHaveText(`Lines 1–200 of ${kept!.lines.toLocaleString("en-US")}`)

    await outputs.find("4242")
    await expect(outputs.summary).toHaveText("1 of 1")
    await expect(outputs.currentMatch).toHaveAttribute("data-line", "4242")
    await expect(outputs.viewer).toHaveAttribute("data-offset", "4200")
    await expect(outputs.currentMatch.locator("mark")).toHaveText("4242")

    await outputs.find("999")
    await expect(outputs.summary).toHaveText("1 of 5")
    await expect(outputs.currentMatch).toHaveAttribute("data-line", "999")
    await outputs.next()
    await expect(outputs.currentMatch).toHaveAttribute("data-line", "1999")
    await outputs.next()
    await expect(outputs.currentMatch).toHaveAttribute("data-line", "2999")
    await outputs.previous()
    await expect(outputs.currentMatch).toHaveAttribute("data-line", "1999")
    await attach(testInfo, page, "output-viewer-search")

    await page.getByTestId("output-first").click()
    await outputs.expectPage(0)
    await outputs.nextPage()
    await outputs.expectPage(200)
    await outputs.lastPage()
    await expect(outputs.viewer).toHaveAttribute("data-offset", String(Math.floor((kept!.lines - 1) / 200) * 200))
    await expect(outputs.lines.last()).toHaveAttribute("data-line", String(kept!.lines))
    await page.getByTestId("output-goto-line").fill("2500")
    await page.getByTestId("output-goto-line").press("Enter")
    await outputs.expectPage(2400)

    expect(existsSync(kept!.path)).toBe(true)
    await outputs.deleteOpen()
    expect(existsSync(kept!.path)).toBe(false)
    await outputs.back()
    await expect(outputs.rows.first()).toHaveAttribute("data-retention", "deleted")
    await expect(outputs.rows.first().getByTestId("output-open")).toHaveCount(0)
    expect(cspViolations).toEqual([])
  })
})
