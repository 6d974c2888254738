import { expect, type Locator, type Page } from "@playwright/test"
import { ShellPage } from "./shell-page"

/** The OpenCode servers panel of the sessions view. Shared by the web and Electron suites. */
export class ConnectionsPage {
  readonly shell: ShellPage
  readonly root: Locator
  readonly rows: Locator
  readonly form: Locator

  constructor(readonly page: Page) {
    this.shell = new ShellPage(page)
    this.root = page.getByTestId("connections")
    this.rows = this.root.getByTestId("connection")
    this.form = page.getByTestId("connection-add-form")
  }

  async open() {
    await this.shell.open("sessions")
    await expect(this.root).toBeVisible()
  }

  row(name: string): Locator {
    return this.rows.and(this.page.locator(`[data-name="${name}"]`))
  }

  /** Adds a server through the form and waits for its row. */
  async add(options: { readonly url: string; readonly name?: string; readonly password?: string }) {
    await this.root.getByTestId("connection-add-open").click()
    await this.form.getByTestId("connection-add-url").fill(options.url)
    if (options.name !== undefined) await this.form.getByTestId("connection-add-name").fill(options.name)
    if (options.password !== undefined) await this.form.getByTestId("connection-add-password").fill(options.password)
    await this.form.getByTestId("connection-add-save").click()
    await expect(this.form).toHaveCount(0)
    if (options.name !== undefined) await expect(this.row(options.name)).toHaveCount(1)
  }

  /** Waits until the named connection is in `state` (its semantic `data-state`). */
  async expectState(name: string, state: string) {
    await expect(this.row(name)).toHaveAttribute("data-state", state)
  }
}
