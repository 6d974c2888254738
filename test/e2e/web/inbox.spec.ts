import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { Page, TestInfo } from "@playwright/test"
import { InboxPage } from "../pages/inbox-page"
import { bashTurn, makeProject, startScripted, type ContractClient } from "../support/sessions"
import { expect, test } from "./inbox-support"

// Inbox journeys against the real headless host: every ask comes from a real runner session
// (scripted provider) whose tool call waits in the core until the person answers in the browser.

interface ToolCallView {
  readonly tool: string
  readonly status: string
  readonly preview: string | null
  readonly error: string | null
}

/** The session's tool calls, as the sessions view reads them. */
const toolCalls = async (agents: ContractClient, sessionID: string) =>
  (await agents.ok<{ toolCalls: ReadonlyArray<ToolCallView> }>("sessions.get", { sessionID })).toolCalls

const attach = async (testInfo: TestInfo, page: Page, name: string) =>
  testInfo.attach(name, { body: await page.screenshot(), contentType: "image/png" })

test.describe("inbox", () => {
  test("approves an ask once: the card goes and the command runs", async ({
    page,
    host,
    agents,
    projects,
    cspViolations,
  }, testInfo) => {
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    await expect(inbox.empty).toBeVisible()
    const project = makeProject(projects, "alpha")
    await startScripted(agents, project, [bashTurn(["echo approved > out.txt"])], "Approve once")
    const card = inbox.askCard("echo approved > out.txt")
    await expect(card).toBeVisible()
    await expect(inbox.sessionGroup("Approve once")).toContainText("1 waiting")
    await expect(card.getByTestId("ask-workdir")).toHaveText(".")
    await expect(page).toHaveTitle("(1) Gatehouse")
    await attach(testInfo, page, "inbox-one-ask")
    await inbox.answer(card, "once")
    await inbox.expectPending(0)
    await expect(card).toHaveCount(0)
    await expect(inbox.empty).toBeVisible()
    await expect(page).toHaveTitle("Gatehouse")
    await expect.poll(() => readFileSync(join(project, "out.txt"), "utf8")).toBe("approved\n")
    expect(cspViolations).toEqual([])
  })

  test("approves always, showing the pattern it saves, and the other matching ask is approved with it", async ({
    page,
    host,
    agents,
    projects,
  }, testInfo) => {
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    const project = makeProject(projects, "alpha")
    await startScripted(agents, project, [bashTurn(["echo same", "echo other"])], "First")
    await startScripted(agents, project, [bashTurn(["echo same"])], "Second")
    await inbox.expectPending(3)
    const first = inbox.sessionGroup("First")
    await expect(first).toBeVisible()
    const card = inbox.askCard("echo same").first()
    await expect(card.getByTestId("always-pattern")).toHaveText(["echo same"])
    await expect(card.getByTestId("always-patterns")).toContainText("in project alpha")
    await attach(testInfo, page, "inbox-always")
    await inbox.answer(card, "always")
    await inbox.expectPending(1)
    await expect(inbox.askCard("echo same")).toHaveCount(0)
    await expect(inbox.askCard("echo other")).toHaveCount(1)
  })

  test("rejects with feedback that the model receives", async ({ page, host, agents, projects }) => {
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    const project = makeProject(projects, "alpha")
    const session = await startScripted(agents, project, [bashTurn(["rm -rf build"])], "Feedback")
    const card = inbox.askCard("rm -rf build")
    await expect(card).toBeVisible()
    await inbox.rejectWithFeedback(card, "Use `npm run clean` instead")
    await inbox.expectPending(0)
    await expect
      .poll(async () => (await toolCalls(agents, session.id))[0]?.error ?? "")
      .toContain("the following feedback: Use `npm run clean` instead")
  })

  test("rejects a whole session while another session's asks stay", async ({
    page,
    host,
    agents,
    projects,
  }, testInfo) => {
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    const project = makeProject(projects, "alpha")
    await startScripted(agents, project, [bashTurn(["echo a1", "echo a2", "echo a3"])], "Runaway")
    await startScripted(agents, project, [bashTurn(["echo b1", "echo b2"])], "Steady")
    await inbox.expectPending(5)
    await inbox.sessionGroup("Runaway").getByTestId("reject-session").click()
    await expect(inbox.sessionGroup("Runaway").getByTestId("session-feedback")).toBeVisible()
    await attach(testInfo, page, "inbox-reject-session")
    await inbox.sessionGroup("Runaway").getByTestId("session-feedback").getByRole("textbox").fill("Stop, this loops.")
    await inbox.sessionGroup("Runaway").getByRole("button", { name: "Reject 3", exact: true }).click()
    await inbox.expectPending(2)
    await expect(inbox.sessionGroup("Runaway")).toHaveCount(0)
    await expect(inbox.sessionGroup("Steady")).toContainText("2 waiting")
    await expect(inbox.askCard(/echo b[12]/)).toHaveCount(2)
  })

  test("answers a question with one of its options", async ({ page, host, agents, projects }, testInfo) => {
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    const project = makeProject(projects, "alpha")
    const questions = [
      {
        question: "Which database should the app use?",
        header: "Database",
        options: [
          { label: "SQLite", description: "One file, no server" },
          { label: "Postgres", description: "A server" },
        ],
      },
    ]
    const session = await startScripted(
      agents,
      project,
      [{ toolCalls: [{ name: "question", input: { questions } }] }],
      "Question",
    )
    const card = inbox.questionCards.first()
    await expect(card).toContainText("Which database should the app use?")
    await expect(card.getByRole("radio")).toHaveCount(2)
    await attach(testInfo, page, "inbox-question")
    await card.getByRole("radio", { name: /SQLite/ }).check()
    await card.getByRole("button", { name: "Send answers" }).click()
    await inbox.expectPending(0)
    await expect.poll(async () => (await toolCalls(agents, session.id))[0]?.preview ?? "").toContain("SQLite")
  })

  test("triages five asks with the keyboard alone", async ({ page, host, agents, projects }, testInfo) => {
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    const project = makeProject(projects, "alpha")
    await startScripted(agents, project, [bashTurn(["echo k1"])], "One")
    await inbox.expectPending(1)
    await startScripted(agents, project, [bashTurn(["echo k2", "echo k3"])], "Two")
    await inbox.expectPending(3)
    await startScripted(agents, project, [bashTurn(["echo k4", "echo k5"])], "Three")
    await inbox.expectPending(5)

    await inbox.press("?")
    await expect(inbox.keyHelp).toBeVisible()
    await attach(testInfo, page, "inbox-keys")
    await inbox.press("?")
    await expect(inbox.keyHelp).toHaveCount(0)

    // The cursor starts on the longest-blocked session's card.
    await expect(inbox.cursorCard).toContainText("echo k1")
    await inbox.press("o")
    await inbox.expectPending(4)
    // The next card came under the cursor by itself: it is armed only after a moment.
    await expect(inbox.cursorCard).toContainText(/echo k[23]/)
    await inbox.press("x")
    await inbox.press("j")
    await inbox.press("x")
    await expect(inbox.bulkBar).toContainText("2 selected")
    await inbox.press("o")
    await inbox.expectPending(2)
    await expect(inbox.cursorCard).toContainText(/echo k[45]/)
    await inbox.press("j")
    await inbox.press("k")
    await inbox.press("a")
    await inbox.expectPending(1)
    await inbox.press("f")
    const feedback = inbox.cursorCard.getByTestId("feedback").getByRole("textbox")
    await expect(feedback).toBeFocused()
    // Letters typed into the box are text, not commands ("o", "a", "r" and "x" are all in here).
    await page.keyboard.type("not now, try another approach")
    await inbox.expectPending(1)
    await page.keyboard.press("Enter")
    await inbox.expectPending(0)
  })

  test("stops a key meant for one card from answering the card that replaces it", async ({
    page,
    host,
    agents,
    projects,
  }) => {
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    const project = makeProject(projects, "alpha")
    await startScripted(agents, project, [bashTurn(["echo first", "echo second"])], "Pair")
    await inbox.expectPending(2)
    await inbox.expectCursorArmed()
    // In the page, so no round trip can delay it: "o" answers the card under the cursor, and a second
    // "o" goes the instant the next card moves under the cursor, as a buffered key would.
    await page.evaluate(`new Promise((resolve) => {
      const first = document.querySelector('[data-cursor="true"]').dataset.id
      const press = () => document.dispatchEvent(new KeyboardEvent("keydown", { key: "o", bubbles: true }))
      const observer = new MutationObserver(() => {
        const next = document.querySelector('[data-cursor="true"]')
        if (!next || next.dataset.id === first) return
        observer.disconnect()
        press()
        resolve()
      })
      observer.observe(document.body, { subtree: true, childList: true, attributes: true })
      press()
    })`)
    await inbox.expectPending(1)
    await expect(inbox.cursorCard).toHaveAttribute("data-state", "pending")
    await inbox.expectCursorArmed()
    await expect(inbox.cursorCard).toHaveAttribute("data-state", "pending")
    await inbox.expectPending(1)
  })

  test("closes the feedback box of an ask that ended elsewhere, with a notice, and sends nothing", async ({
    page,
    host,
    agents,
    projects,
  }) => {
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    const project = makeProject(projects, "alpha")
    const session = await startScripted(agents, project, [bashTurn(["sleep 1"])], "Stopped")
    const card = inbox.askCard("sleep 1")
    await card.getByRole("button", { name: "Reject with feedback f", exact: true }).click()
    await card.getByTestId("feedback").getByRole("textbox").fill("half-written")
    await agents.ok("sessions.stop", { sessionID: session.id })
    await inbox.expectPending(0)
    await expect(inbox.notice).toContainText("no longer pending")
  })

  test("shows control, ANSI and bidi characters escaped and a long command's tail", async ({
    page,
    host,
    agents,
    projects,
  }, testInfo) => {
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    const project = makeProject(projects, "alpha")
    const spoof = "echo \u001b[31mred\u001b[0m && ls \u202efdp.exe\rrm x"
    const long = `echo ${"x".repeat(5000)} ; rm -rf ~/important`
    await startScripted(agents, project, [bashTurn([spoof, long])], "Hostile")
    await inbox.expectPending(2)
    const card = inbox.askCard("fdp.exe")
    await expect(card.getByTestId("long-text")).toHaveText("echo \\x1b[31mred\\x1b[0m && ls \\u202efdp.exe\\rrm x")
    await expect(card.getByTestId("long-text").getByTestId("escaped")).toHaveText(["\\x1b", "\\x1b", "\\u202e", "\\r"])
    const raw = await inbox.root.evaluate((element) => element.textContent ?? "")
    expect(raw).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/)
    const longCard = inbox.askCard("rm -rf ~/important")
    const text = longCard.getByTestId("long-text")
    await expect(text).toHaveAttribute("data-state", "clipped")
    await expect(text).toContainText("; rm -rf ~/important")
    await expect(longCard.getByTestId("long-text-toggle")).toContainText("characters hidden")
    await attach(testInfo, page, "inbox-escaped")
    await longCard.getByTestId("long-text-toggle").click()
    await expect(text).toHaveAttribute("data-state", "expanded")
    await expect(text).toContainText("x".repeat(5000))
  })

  test("shows the diff of an edit and the URL of a fetch", async ({ page, host, agents, projects }, testInfo) => {
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    const project = makeProject(projects, "alpha")
    await startScripted(
      agents,
      project,
      [
        {
          toolCalls: [
            {
              name: "edit",
              input: { path: "src/a.ts", oldString: "const a = 1\n", newString: "const a = 2\nconst b = 3\n" },
            },
            { name: "webfetch", input: { url: "https://example.com/docs?q=1", format: "text" } },
          ],
        },
      ],
      "Material",
    )
    await inbox.expectPending(2)
    const edit = inbox.askCards.filter({ has: page.getByTestId("diff") })
    await expect(edit.getByTestId("card-tool")).toHaveText("edit")
    await expect(edit.locator('[data-kind="del"]')).toHaveText(["-const a = 1"])
    await expect(edit.locator('[data-kind="add"]')).toHaveText(["+const a = 2", "+const b = 3"])
    await expect(edit.getByTestId("ask-resources")).toContainText("src/a.ts")
    const fetch = inbox.askCards.filter({ has: page.getByTestId("ask-url") })
    await expect(fetch.getByTestId("ask-url")).toContainText("https://example.com/docs?q=1")
    await attach(testInfo, page, "inbox-diff-and-url")
  })
})

test.describe("a large inbox", () => {
  test("scrolls through 2000 pending asks and answers at both ends", async ({
    page,
    host,
    agents,
    projects,
  }, testInfo) => {
    test.setTimeout(180_000)
    const inbox = new InboxPage(page)
    await inbox.open(host.readyUrl)
    const project = makeProject(projects, "big")
    for (let s = 0; s < 50; s++) {
      const commands = Array.from({ length: 40 }, (_, i) => `echo s${s}-c${i}`)
      await startScripted(agents, project, [bashTurn(commands)], `Bulk ${s}`)
    }
    await inbox.expectPending(2000)
    // Virtualized: only the rows on screen exist in the DOM.
    expect(await inbox.askCards.count()).toBeLessThan(40)
    await attach(testInfo, page, "inbox-2000-top")
    await inbox.answer(inbox.askCard("echo s0-c0").first(), "once")
    await inbox.expectPending(1999)
    await inbox.list.evaluate((element) => element.scrollTo({ top: element.scrollHeight }))
    const last = inbox.askCard("echo s49-c39")
    await expect(last).toBeVisible()
    await attach(testInfo, page, "inbox-2000-bottom")
    await inbox.answer(last, "once")
    await inbox.expectPending(1998)
    // "Reject all" of a session whose header is scrolled away: R brings the header and its box into view.
    await inbox.askCard("echo s49-c38").click({ position: { x: 5, y: 5 } })
    await inbox.press("R")
    await inbox.sessionGroup("Bulk 49").getByRole("button", { name: "Reject 39", exact: true }).click()
    await inbox.expectPending(1959)
    await expect(inbox.sessionGroup("Bulk 49")).toHaveCount(0)
  })
})
