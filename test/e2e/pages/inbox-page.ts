import { expect, type Locator, type Page } from "@playwright/test"
import { ShellPage } from "./shell-page"

export type Answer = "once" | "always" | "reject"

/** The inbox view: session groups, ask and question cards, the bulk bar and the keys. Shared by the web and Electron suites. */
export class InboxPage {
  readonly shell: ShellPage
  readonly root: Locator
  readonly list: Locator
  readonly count: Locator
  readonly askCards: Locator
  readonly questionCards: Locator
  readonly groups: Locator
  readonly keyHelp: Locator
  readonly bulkBar: Locator
  readonly notice: Locator
  readonly empty: Locator
  readonly cursorCard: Locator

  constructor(readonly page: Page) {
    this.shell = new ShellPage(page)
    this.root = page.getByTestId("inbox")
    this.list = page.getByTestId("inbox-list")
    this.count = page.getByTestId("inbox-count")
    this.askCards = page.getByTestId("ask-card")
    this.questionCards = page.getByTestId("question-card")
    this.groups = page.getByTestId("session-group")
    this.keyHelp = page.getByTestId("key-help")
    this.bulkBar = page.getByTestId("bulk-bar")
    this.notice = page.getByTestId("inbox-notice")
    this.empty = this.root.getByTestId("empty-state")
    this.cursorCard = page.locator('[data-cursor="true"]')
  }

  /** Opens the app from the host's printed URL and waits until the inbox is live. */
  async open(readyUrl: string) {
    await this.shell.goto(readyUrl)
    await this.shell.expectConnection("live")
    await this.shell.expectView("inbox")
  }

  /** Waits until exactly `count` items are pending (the list's semantic count, not what is on screen). */
  async expectPending(count: number) {
    await expect(this.root).toHaveAttribute("data-count", String(count))
  }

  /** The ask card whose text contains `text` (commands, paths, URLs are card text). */
  askCard(text: string | RegExp): Locator {
    return this.askCards.filter({ hasText: text })
  }

  sessionGroup(title: string): Locator {
    return this.groups.filter({ has: this.page.getByRole("heading", { name: title, exact: true }) })
  }

  async answer(card: Locator, answer: Answer) {
    const name = answer === "once" ? "Once o" : answer === "always" ? "Always a" : "Reject r"
    await card.getByRole("button", { name, exact: true }).click()
  }

  async rejectWithFeedback(card: Locator, feedback: string) {
    await card.getByRole("button", { name: "Reject with feedback f", exact: true }).click()
    await card.getByTestId("feedback").getByRole("textbox").fill(feedback)
    await card.getByTestId("feedback").getByRole("button", { name: "Reject with feedback", exact: true }).click()
  }

  /** Waits until the card under the cursor accepts keys (a card that just moved under it waits a moment). */
  async expectCursorArmed() {
    await expect(this.cursorCard).toHaveAttribute("data-armed", "true")
  }

  /** Presses a key once the cursor's card is ready for it. */
  async press(key: string) {
    await this.expectCursorArmed()
    await this.page.keyboard.press(key)
  }
}
