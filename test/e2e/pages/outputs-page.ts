import { expect, type Locator, type Page } from "@playwright/test"
import { ShellPage } from "./shell-page"

/** The outputs table and the paged viewer with search. Shared by the web and Electron suites. */
export class OutputsPage {
  readonly shell: ShellPage
  readonly view: Locator
  readonly table: Locator
  readonly rows: Locator
  readonly viewer: Locator
  readonly lines: Locator
  readonly currentMatch: Locator
  readonly search: Locator
  readonly summary: Locator
  readonly range: Locator

  constructor(readonly page: Page) {
    this.shell = new ShellPage(page)
    this.view = page.getByTestId("view-outputs")
    this.table = page.getByTestId("outputs-table")
    this.rows = this.table.getByTestId("output-row")
    this.viewer = page.getByTestId("output-viewer")
    this.lines = this.viewer.getByTestId("output-line")
    this.currentMatch = this.viewer.locator('[data-testid="output-line"][aria-current="true"]')
    this.search = page.getByTestId("output-search")
    this.summary = page.getByTestId("output-search-summary")
    this.range = page.getByTestId("output-range")
  }

  async open() {
    await this.shell.open("outputs")
  }

  /** Waits until the viewer shows the page starting at 0-based `offset`. */
  async expectPage(offset: number) {
    await expect(this.viewer).toHaveAttribute("data-offset", String(offset))
    await expect(this.viewer).toHaveAttribute("data-state", "ready")
    await expect(this.lines.first()).toHaveAttribute("data-line", String(offset + 1))
  }

  async openRow(index = 0) {
    await this.rows.nth(index).getByTestId("output-open").click()
    await expect(this.viewer).toHaveAttribute("data-state", "ready")
  }

  async find(text: string) {
    await this.search.fill(text)
    await this.search.press("Enter")
    await expect(this.summary).toHaveAttribute("data-state", "idle")
  }

  async next() {
    await this.page.getByTestId("output-search-next").click()
    await expect(this.summary).toHaveAttribute("data-state", "idle")
  }

  async previous() {
    await this.page.getByTestId("output-search-previous").click()
    await expect(this.summary).toHaveAttribute("data-state", "idle")
  }

  async nextPage() {
    await this.page.getByTestId("output-next-page").click()
  }

  async lastPage() {
    await this.page.getByTestId("output-last").click()
  }

  async deleteOpen() {
    await this.viewer.getByTestId("output-viewer-delete").click()
    await this.viewer.getByTestId("output-viewer-delete-yes").click()
    await expect(this.page.getByTestId("output-viewer-removed")).toBeVisible()
  }

  async back() {
    await this.page.getByTestId("output-back").click()
    await expect(this.table).toBeVisible()
  }
}
