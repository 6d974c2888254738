import { expect, type Locator, type Page } from "@playwright/test"

export type ViewName = "inbox" | "sessions" | "approvals" | "outputs"
export type ConnectionState = "connecting" | "live" | "offline"

const titles: Record<ViewName, string> = {
  inbox: "Inbox",
  sessions: "Sessions",
  approvals: "Approvals",
  outputs: "Outputs",
}

/** The app shell: header with the connection indicator, navigation, the current view. Shared by the web and Electron suites. */
export class ShellPage {
  readonly connection: Locator
  readonly problem: Locator
  readonly appInfo: Locator
  readonly navigation: Locator
  readonly heading: Locator

  constructor(readonly page: Page) {
    this.connection = page.getByTestId("connection")
    this.problem = page.getByTestId("connection-problem")
    this.appInfo = page.getByTestId("app-info")
    this.navigation = page.getByRole("navigation", { name: "Views" })
    this.heading = page.getByRole("heading", { level: 1 })
  }

  navItem(view: ViewName): Locator {
    return this.navigation.getByRole("button", { name: titles[view] })
  }

  view(view: ViewName): Locator {
    return this.page.getByTestId(`view-${view}`)
  }

  async goto(url: string) {
    await this.page.goto(url)
  }

  async expectConnection(state: ConnectionState) {
    await expect(this.connection).toHaveAttribute("data-state", state)
  }

  async open(view: ViewName) {
    await this.navItem(view).click()
    await this.expectView(view)
  }

  async expectView(view: ViewName) {
    await expect(this.heading).toHaveText(titles[view])
    await expect(this.navItem(view)).toHaveAttribute("aria-current", "page")
  }
}
