import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page, TestInfo } from "@playwright/test"
import { ApprovalsPage } from "../pages/approvals-page"
import { InboxPage } from "../pages/inbox-page"
import { SessionsPage } from "../pages/sessions-page"
import { test as base, expect } from "../support/fixtures"
import { makeDataDir, removeDataDir, startServe } from "../support/serve"
import { bashTurn, connectContract, makeProject, startScripted, type ContractClient } from "../support/sessions"
import { test as inboxTest } from "./inbox-support"

// Approvals editor journeys against the real headless host; approvals come from real `always`
// answers to real runner sessions, or are added in the editor.

const attach = async (testInfo: TestInfo, page: Page, name: string) =>
  testInfo.attach(name, { body: await page.screenshot({ fullPage: true }), contentType: "image/png" })

/** A turn that needs no answer under any config used here (glob is allowed for build). */
const quietTurn = { toolCalls: [{ name: "glob", input: { pattern: "*" } }] }

inboxTest.describe("approvals (bash asks)", () => {
  inboxTest(
    "shows an always answer as a saved approval that counted the ask it approved with it",
    async ({ page, host, agents, projects }, testInfo) => {
      const inbox = new InboxPage(page)
      await inbox.open(host.readyUrl)
      const project = makeProject(projects, "alpha")
      await startScripted(agents, project, [bashTurn(["echo same"])], "First")
      await inbox.expectPending(1)
      await startScripted(agents, project, [bashTurn(["echo same"])], "Second")
      await inbox.expectPending(2)
      await inbox.answer(inbox.askCard("echo same").first(), "always")
      await inbox.expectPending(0)

      const approvals = new ApprovalsPage(page)
      await approvals.open()
      const row = approvals.row("echo same")
      await expect(row).toHaveCount(1)
      await approvals.expectHits("echo same", 1)
      await expect(row.getByTestId("approval-last-used")).not.toHaveText("never")
      await expect(row.getByTestId("approval-origin")).toContainText("echo same")
      await expect(row.getByTestId("approval-origin-session")).toHaveText(/First|Second/)
      await expect(approvals.view.getByTestId("approval-project")).toContainText("alpha")
      await attach(testInfo, page, "approvals-after-always")

      // The origin links to the session the ask came from.
      const title = await row.getByTestId("approval-origin-session").textContent()
      await row.getByTestId("approval-origin-session").click()
      const sessions = new SessionsPage(page)
      await sessions.shell.expectView("sessions")
      await expect(sessions.detail.getByTestId("session-title")).toHaveText(title!)
    },
  )

  inboxTest("revoking an approval makes the next matching call ask again", async ({ page, host, agents, projects }) => {
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    const project = makeProject(projects, "alpha")
    await startScripted(agents, project, [bashTurn(["echo again"])], "Saves it")
    await inbox.answer(inbox.askCard("echo again"), "always")
    await inbox.expectPending(0)

    // Allowed by the approval: the call runs without asking and the session ends.
    await startScripted(agents, project, [bashTurn(["echo again"])], "Allowed")
    const sessions = new SessionsPage(page)
    await sessions.open()
    await sessions.expectStatus("Allowed", "idle")
    const approvals = new ApprovalsPage(page)
    await approvals.open()
    await approvals.expectHits("echo again", 1)

    await approvals.revoke("echo again")
    await expect(approvals.empty).toBeVisible()

    await startScripted(agents, project, [bashTurn(["echo again"])], "Asks again")
    await inbox.shell.open("inbox")
    await inbox.expectPending(1)
    await expect(inbox.askCard("echo again")).toHaveCount(1)
    await expect(inbox.sessionGroup("Asks again")).toBeVisible()
  })

  inboxTest(
    "adds, edits, filters and exports approvals, explaining a refused pattern in place",
    async ({ page, host, agents, projects, cspViolations }, testInfo) => {
      await startScripted(agents, makeProject(projects, "alpha"), [quietTurn], "Alpha")
      await startScripted(agents, makeProject(projects, "beta"), [quietTurn], "Beta")
      const approvals = new ApprovalsPage(page)
      await approvals.shell.goto(host.readyUrl)
      await approvals.shell.expectConnection("live")
      await approvals.open()
      await expect(approvals.empty).toBeVisible()
      await expect(approvals.agentRules.getByTestId("agent").first()).toBeVisible()

      await approvals.fillAdd({ project: "alpha", action: "bash", resource: " npm test *" })
      await expect(approvals.addForm.getByTestId("approval-add-resource-error")).toContainText("Remove the spaces")
      await approvals.addForm.getByTestId("approval-add-save").click()
      await expect(approvals.rows).toHaveCount(0)
      await approvals.add({ project: "alpha", action: "bash", resource: "npm test *" })
      await approvals.add({ project: "beta", action: "edit", resource: "src/**" })
      await expect(approvals.rows).toHaveCount(2)

      const row = await approvals.typeEdit("npm test *", "")
      await expect(row.getByTestId("approval-edit-error")).toContainText("Enter a pattern")
      await expect(row.getByTestId("approval-edit-save")).toBeDisabled()
      await row.getByTestId("approval-edit-input").fill("npm run test *")
      await row.getByTestId("approval-edit-save").click()
      await expect(approvals.row("npm run test *")).toHaveCount(1)
      await expect(approvals.row("npm test *")).toHaveCount(0)

      await approvals.filter.fill("src")
      await expect(approvals.rows).toHaveCount(1)
      await expect(approvals.row("src/**")).toHaveCount(1)
      await approvals.filter.fill("")
      await approvals.projectFilter.selectOption({ label: "alpha" })
      await expect(approvals.rows).toHaveCount(1)
      await expect(approvals.row("npm run test *")).toHaveCount(1)
      await approvals.filter.fill("no such thing")
      await expect(approvals.noMatch).toBeVisible()
      await approvals.filter.fill("")
      await approvals.projectFilter.selectOption({ value: "" })
      await attach(testInfo, page, "approvals-editor")

      const exported = (await approvals.exportJson()) as {
        fileName: string
        document: {
          format: string
          approvals: ReadonlyArray<{ project: { name: string }; action: string; resource: string }>
        }
      }
      expect(exported.fileName).toMatch(/^gatehouse-approvals-.*\.json$/)
      expect(exported.document.format).toBe("gatehouse.approvals")
      expect(exported.document.approvals.map((entry) => [entry.project.name, entry.action, entry.resource])).toEqual([
        ["alpha", "bash", "npm run test *"],
        ["beta", "edit", "src/**"],
      ])
      expect(cspViolations).toEqual([])
    },
  )
})

// A host whose build agent denies `rm` outright: an approval for it can never take effect.
const test = base.extend<{ readonly agents: ContractClient; readonly projects: string }>({
  // eslint-disable-next-line no-empty-pattern
  host: async ({}, use) => {
    const dataDir = makeDataDir()
    writeFileSync(
      join(dataDir, "config.jsonc"),
      JSON.stringify({
        agents: {
          build: [
            { action: "bash", resource: "*", effect: "ask" },
            { action: "bash", resource: "rm *", effect: "deny" },
          ],
        },
      }),
    )
    const host = await startServe({ dataDir })
    await use(host)
    await host.stop()
    removeDataDir(dataDir)
  },
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

test("flags an approval that a configured deny makes ineffective, beside the read-only agent rules", async ({
  page,
  host,
  agents,
  projects,
}, testInfo) => {
  await startScripted(agents, makeProject(projects, "alpha"), [quietTurn], "Alpha")
  const approvals = new ApprovalsPage(page)
  await approvals.shell.goto(host.readyUrl)
  await approvals.shell.expectConnection("live")
  await approvals.open()
  await approvals.add({ action: "bash", resource: "rm -rf build" })
  await approvals.add({ action: "read", resource: "docs/*" })

  const shadowed = approvals.row("rm -rf build")
  await expect(shadowed).toHaveAttribute("data-shadowed", "true")
  await expect(shadowed.getByTestId("approval-shadowed")).toContainText("build")
  await expect(shadowed.getByTestId("approval-shadow-rule").filter({ hasText: "build:" })).toContainText(
    "bash rm * → deny",
  )
  await expect(approvals.row("docs/*")).toHaveAttribute("data-shadowed", "false")

  const build = approvals.agentRules.locator('[data-agent="build"]')
  await expect(build.getByTestId("agent-rule").last()).toContainText("bash rm *")
  await expect(approvals.agentRules.locator("input, textarea, select")).toHaveCount(0)

  await approvals.shadowedFilter.check()
  await expect(approvals.rows).toHaveCount(1)
  await expect(approvals.row("rm -rf build")).toHaveCount(1)
  await attach(testInfo, page, "approvals-shadowed")
})
