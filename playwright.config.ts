import { existsSync } from "node:fs"
import { defineConfig } from "@playwright/test"

// Chromium from the system (Debian's `chromium`, or CHROMIUM_PATH) so CI needs no browser
// download; Playwright's own build is the fallback where one is installed.
const executablePath = process.env.CHROMIUM_PATH || (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined)

const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
]

export default defineConfig({
  testMatch: "**/*.spec.ts",
  outputDir: "test-results",
  globalSetup: "./test/e2e/support/global-setup.ts",
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: process.env.CI ? 1 : 0,
  workers: 2,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : [["list"]],
  snapshotPathTemplate: "{testDir}/__screenshots__/{testFilePath}/{arg}-{platform}{ext}",
  use: {
    screenshot: "only-on-failure",
    trace: "on-first-retry",
  },
  projects: [
    {
      name: "web",
      testDir: "test/e2e/web",
      use: {
        browserName: "chromium",
        launchOptions: { args: chromiumArgs, ...(executablePath ? { executablePath } : {}) },
      },
    },
    {
      name: "electron",
      testDir: "test/e2e/electron",
    },
  ],
})
