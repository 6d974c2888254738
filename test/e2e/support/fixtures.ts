import { test as base, type Page } from "@playwright/test"
import { makeDataDir, removeDataDir, startServe, type ServeProcess } from "./serve"

/** A Content-Security-Policy violation the page reported. */
export interface CspViolation {
  readonly directive: string
  readonly blockedURI: string
}

interface Fixtures {
  /** A fresh headless host (own temp data directory) for this test; stopped after it. */
  readonly host: ServeProcess
  /** Every `securitypolicyviolation` the page reports, collected from the first document on. */
  readonly cspViolations: ReadonlyArray<CspViolation>
}

export const test = base.extend<Fixtures>({
  // Playwright reads a fixture's dependencies from its first parameter's pattern: none here.
  // eslint-disable-next-line no-empty-pattern
  host: async ({}, use) => {
    const dataDir = makeDataDir()
    const host = await startServe({ dataDir })
    await use(host)
    await host.stop()
    removeDataDir(dataDir)
  },
  cspViolations: async ({ page }, use) => {
    await use(await recordCspViolations(page))
  },
})

export { expect } from "@playwright/test"

async function recordCspViolations(page: Page): Promise<ReadonlyArray<CspViolation>> {
  const violations: Array<CspViolation> = []
  await page.exposeFunction("__gatehouseRecordCspViolation", (violation: CspViolation) => {
    violations.push(violation)
  })
  // Init scripts are injected by the browser itself, so the page's CSP does not block this one.
  // It is a string because it runs in the page, whose DOM types this Node-side file does not have.
  await page.addInitScript({
    content: `document.addEventListener("securitypolicyviolation", (event) => {
      window.__gatehouseRecordCspViolation({ directive: event.effectiveDirective, blockedURI: event.blockedURI })
    })`,
  })
  page.on("console", (message) => {
    if (message.type() === "error" && message.text().includes("Content Security Policy")) {
      violations.push({ directive: "console", blockedURI: message.text() })
    }
  })
  return violations
}
