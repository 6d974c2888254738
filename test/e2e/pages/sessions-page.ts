import { expect, type Locator, type Page } from "@playwright/test"
import { ShellPage } from "./shell-page"

/** The sessions table and one session's detail. Shared by the web and Electron suites. */
export class SessionsPage {
  readonly shell: ShellPage
  readonly view: Locator
  readonly table: Locator
  readonly rows: Locator
  readonly statusFilter: Locator
  readonly projectFilter: Locator
  readonly detail: Locator
  readonly timeline: Locator
  readonly toolCalls: Locator
  readonly todos: Locator
  readonly decisions: Locator

  constructor(readonly page: Page) {
    this.shell = new ShellPage(page)
    this.view = page.getByTestId("view-sessions")
    this.table = page.getByTestId("sessions-table")
    this.rows = this.table.getByTestId("session-row")
    this.statusFilter = page.getByTestId("sessions-status-filter")
    this.projectFilter = page.getByTestId("sessions-project-filter")
    this.detail = page.getByTestId("session-detail")
    this.timeline = page.getByTestId("timeline")
    this.toolCalls = page.getByTestId("tool-call")
    this.todos = page.getByTestId("todo")
    this.decisions = page.getByTestId("decision")
  }

  async open() {
    await this.shell.open("sessions")
  }

  row(title: string): Locator {
    return this.rows.filter({ has: this.page.getByTestId("session-open").getByText(title, { exact: true }) })
  }

  async expectStatus(title: string, status: string) {
    await expect(this.row(title)).toHaveAttribute("data-status", status)
  }

  /** Titles of the rows shown, top to bottom. */
  async titles(): Promise<ReadonlyArray<string>> {
    return this.rows.getByTestId("session-open").allTextContents()
  }

  async filterStatus(status: string | null) {
    await this.statusFilter.selectOption(status ?? "")
  }

  async filterProject(name: string | null) {
    await this.projectFilter.selectOption(name === null ? { value: "" } : { label: name })
  }

  /** Opens a session's detail and waits until it has loaded. */
  async openSession(title: string) {
    await this.row(title).getByTestId("session-open").click()
    await expect(this.detail).toHaveAttribute("data-state", "ready")
  }

  /** The timeline entries of calls to `tool`, in the order they started. */
  toolCall(tool: string): Locator {
    return this.detail.locator(`[data-testid="tool-call"][data-tool="${tool}"]`)
  }

  async stop() {
    await this.detail.getByTestId("session-stop").click()
    await this.detail.getByTestId("session-stop-yes").click()
  }

  async back() {
    await this.detail.getByTestId("session-back").click()
    await expect(this.table).toBeVisible()
  }
}
