import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { test as base } from "../support/fixtures"
import { makeDataDir, removeDataDir, startServe, type ServeProcess } from "../support/serve"
import { connectContract, writeAskConfig, type ContractClient } from "../support/sessions"

// A headless host whose `build` agent asks before bash, edit and webfetch, a contract client to
// start scripted sessions on it, and a temp directory for their projects.

interface InboxFixtures {
  readonly host: ServeProcess
  readonly agents: ContractClient
  /** A temp directory for project directories; removed after the test. */
  readonly projects: string
}

export const test = base.extend<InboxFixtures>({
  // eslint-disable-next-line no-empty-pattern
  host: async ({}, use) => {
    const dataDir = makeDataDir()
    writeAskConfig(dataDir, ["bash", "edit", "webfetch"])
    const host = await startServe({ dataDir })
    await use(host)
    await host.stop()
    removeDataDir(dataDir)
  },
  agents: async ({ host }, use) => {
    const client = await connectContract(host)
    await use(client)
    client.close()
  },
  // eslint-disable-next-line no-empty-pattern
  projects: async ({}, use) => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "gatehouse-projects-")))
    await use(root)
    rmSync(root, { recursive: true, force: true })
  },
})

export { expect } from "../support/fixtures"
