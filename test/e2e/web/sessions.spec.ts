import type { Page, TestInfo } from "@playwright/test"
import { InboxPage } from "../pages/inbox-page"
import { SessionsPage } from "../pages/sessions-page"
import { bashTurn, makeProject, startScripted } from "../support/sessions"
import { expect, test } from "./inbox-support"

// Sessions view journeys against the real headless host: real runner sessions (scripted provider)
// whose build agent asks before bash, so a session blocks until its ask is answered.

const attach = async (testInfo: TestInfo, page: Page, name: string) =>
  testInfo.attach(name, { body: await page.screenshot({ fullPage: true }), contentType: "image/png" })

const todos = {
  toolCalls: [
    {
      name: "todowrite",
      input: {
        todos: [
          { content: "Find the failing test", status: "completed", priority: "high" },
          { content: "Fix the greeting", status: "in_progress", priority: "medium" },
        ],
      },
    },
    { name: "glob", input: { pattern: "*" } },
  ],
}

test.describe("sessions", () => {
  test("filters the table and follows a session's timeline, todos and decisions live", async ({
    page,
    host,
    agents,
    projects,
  }, testInfo) => {
    const sessions = new SessionsPage(page)
    await sessions.shell.goto(host.readyUrl)
    await sessions.shell.expectConnection("live")
    await sessions.open()
    await expect(sessions.view.getByTestId("empty-state")).toBeVisible()

    await startScripted(agents, makeProject(projects, "alpha"), [todos, bashTurn(["echo fixed"])], "Alpha work")
    await startScripted(
      agents,
      makeProject(projects, "beta"),
      [{ toolCalls: [{ name: "glob", input: { pattern: "*" } }] }],
      "Beta scan",
    )
    await sessions.expectStatus("Alpha work", "blocked")
    await sessions.expectStatus("Beta scan", "idle")
    await expect(sessions.row("Alpha work").getByTestId("session-pending")).toHaveText("1")
    await expect(sessions.row("Beta scan").getByTestId("session-pending")).toHaveText("0")
    await expect(sessions.row("Alpha work")).toContainText("runner")
    await attach(testInfo, page, "sessions-table")

    await sessions.filterStatus("blocked")
    expect(await sessions.titles()).toEqual(["Alpha work"])
    await sessions.filterStatus(null)
    await sessions.filterProject("beta")
    expect(await sessions.titles()).toEqual(["Beta scan"])
    await sessions.filterProject(null)
    await expect(sessions.rows).toHaveCount(2)

    await sessions.openSession("Alpha work")
    await expect(sessions.toolCall("todowrite")).toHaveAttribute("data-status", "completed")
    await expect(sessions.toolCall("glob")).toHaveAttribute("data-status", "completed")
    const bash = sessions.toolCall("bash")
    await expect(bash).toHaveAttribute("data-status", "running")
    await expect(bash.getByTestId("tool-call-input")).toHaveText("echo fixed")
    await expect(sessions.todos).toHaveCount(2)
    await expect(sessions.todos.nth(1)).toHaveAttribute("data-status", "in_progress")
    await expect(sessions.decisions).toHaveCount(1)
    await expect(sessions.decisions.first()).toHaveAttribute("data-status", "pending")

    // Answered elsewhere (here by the contract, as another window would): the detail follows by itself.
    const snapshot = await agents.ok<{ asks: ReadonlyArray<{ request: { id: string } }> }>("app.snapshot")
    await agents.ok("permission.reply", { requestID: snapshot.asks[0]!.request.id, reply: "once" })
    await expect(bash).toHaveAttribute("data-status", "completed")
    await expect(bash.getByTestId("tool-call-result")).toContainText("fixed")
    await expect(bash.getByTestId("tool-call-duration")).toHaveText(/\d/)
    await expect(sessions.decisions.first()).toHaveAttribute("data-status", "once")
    await expect(sessions.detail.getByTestId("session-detail-status")).toHaveText("idle")
    await attach(testInfo, page, "session-detail")

    await sessions.back()
    await sessions.expectStatus("Alpha work", "idle")
  })

  test("stops a blocked session from its detail page, withdrawing its ask from the inbox", async ({
    page,
    host,
    agents,
    projects,
  }) => {
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    await startScripted(agents, makeProject(projects, "alpha"), [bashTurn(["sleep 1000"])], "Runaway")
    await inbox.expectPending(1)

    const sessions = new SessionsPage(page)
    await sessions.open()
    await sessions.openSession("Runaway")
    await sessions.detail.getByTestId("session-stop").click()
    await expect(sessions.detail.getByTestId("session-stop-confirm")).toContainText("Stop this session?")
    await sessions.detail.getByTestId("session-stop-cancel").click()
    await expect(sessions.detail.getByTestId("session-detail-status")).toHaveText("blocked")
    await sessions.stop()
    await expect(sessions.detail.getByTestId("session-detail-status")).toHaveText("stopped")
    await expect(sessions.toolCall("bash")).toHaveAttribute("data-status", "interrupted")
    await expect(sessions.detail.getByTestId("session-stop")).toHaveCount(0)

    await inbox.shell.open("inbox")
    await inbox.expectPending(0)
  })
})
