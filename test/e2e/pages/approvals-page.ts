import { expect, type Locator, type Page } from "@playwright/test"
import { ShellPage } from "./shell-page"

/** The approvals editor: saved approvals by project → action → resource, and the agent rules. Shared by the web and Electron suites. */
export class ApprovalsPage {
  readonly shell: ShellPage
  readonly view: Locator
  readonly rows: Locator
  readonly empty: Locator
  readonly filter: Locator
  readonly projectFilter: Locator
  readonly shadowedFilter: Locator
  readonly noMatch: Locator
  readonly agentRules: Locator
  readonly addButton: Locator
  readonly addForm: Locator
  readonly exportButton: Locator

  constructor(readonly page: Page) {
    this.shell = new ShellPage(page)
    this.view = page.getByTestId("view-approvals")
    this.rows = this.view.getByTestId("approval-row")
    this.empty = this.view.getByTestId("empty-state")
    this.filter = page.getByTestId("approvals-filter")
    this.projectFilter = page.getByTestId("approvals-project-filter")
    this.shadowedFilter = page.getByTestId("approvals-shadowed-filter")
    this.noMatch = page.getByTestId("approvals-no-match")
    this.agentRules = page.getByTestId("agent-rules")
    this.addButton = page.getByTestId("approvals-add")
    this.addForm = page.getByTestId("approval-add-form")
    this.exportButton = page.getByTestId("approvals-export")
  }

  async open() {
    await this.shell.open("approvals")
  }

  /** The row of the approval whose resource pattern is exactly `resource`. */
  row(resource: string): Locator {
    return this.view.locator(`[data-testid="approval-row"][data-resource="${resource.replaceAll('"', '\\"')}"]`)
  }

  async expectHits(resource: string, hits: number) {
    await expect(this.row(resource).getByTestId("approval-hits")).toHaveText(String(hits))
  }

  async revoke(resource: string) {
    const row = this.row(resource)
    await row.getByTestId("approval-revoke").click()
    await row.getByTestId("approval-revoke-yes").click()
    await expect(row).toHaveCount(0)
  }

  /** Starts editing a row's pattern and types `resource` (without saving). */
  async typeEdit(current: string, resource: string): Promise<Locator> {
    const row = this.row(current)
    await row.getByTestId("approval-edit").click()
    await row.getByTestId("approval-edit-input").fill(resource)
    return row
  }

  async edit(current: string, resource: string) {
    const row = await this.typeEdit(current, resource)
    await row.getByTestId("approval-edit-save").click()
    await expect(this.row(resource)).toHaveCount(1)
  }

  /** Fills the add form (opening it first); `save` submits it. */
  async fillAdd(input: { readonly project?: string; readonly action: string; readonly resource: string }) {
    if (!(await this.addForm.isVisible())) await this.addButton.click()
    if (input.project) await this.addForm.getByTestId("approval-add-project").selectOption({ label: input.project })
    await this.addForm.getByTestId("approval-add-action").fill(input.action)
    await this.addForm.getByTestId("approval-add-resource").fill(input.resource)
  }

  async add(input: { readonly project?: string; readonly action: string; readonly resource: string }) {
    await this.fillAdd(input)
    await this.addForm.getByTestId("approval-add-save").click()
    await expect(this.addForm).toHaveCount(0)
    await expect(this.row(input.resource)).toHaveCount(1)
  }

  /** Clicks Export and returns the downloaded JSON document. */
  async exportJson(): Promise<unknown> {
    const [download] = await Promise.all([this.page.waitForEvent("download"), this.exportButton.click()])
    const stream = await download.createReadStream()
    const chunks: Array<Buffer> = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    return { fileName: download.suggestedFilename(), document: JSON.parse(Buffer.concat(chunks).toString("utf8")) }
  }
}
