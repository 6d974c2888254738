import { rmSync } from "node:fs"
import { join } from "node:path"
import { ConnectionsPage } from "../pages/connections-page"
import { InboxPage } from "../pages/inbox-page"
import { SessionsPage } from "../pages/sessions-page"
import {
  bashTurn,
  opencodeApi,
  opencodeBinary,
  opencodeHome,
  startOpencode,
  startScriptedModel,
  writeOpencodeProject,
} from "../../support/opencode"
import { makeTempDir } from "../../support/temp"
import { expect, test } from "../support/fixtures"

// Gatehouse supervising a real `opencode serve` (the opencode-ai dev dependency, its model a
// scripted local server): the person adds the server in the UI, and approves OpenCode's ask from
// the inbox like any other; the command runs in OpenCode.

const binary = opencodeBinary()

test.describe("OpenCode servers", () => {
  test.skip(!binary.path, `no OpenCode binary here: ${binary.reason}`)

  test("approves an OpenCode ask from the inbox, and the command runs in OpenCode", async ({
    page,
    host,
    cspViolations,
  }) => {
    test.setTimeout(120_000)
    const work = makeTempDir("gatehouse-e2e-opencode-")
    const model = await startScriptedModel()
    const project = join(work, "project")
    writeOpencodeProject(project, model.server.baseUrl)
    const opencode = await startOpencode({ directory: project, env: opencodeHome(work), password: "e2e-secret" })
    try {
      const connections = new ConnectionsPage(page)
      await connections.shell.goto(host.readyUrl)
      await connections.shell.expectConnection("live")
      await connections.open()
      await connections.add({ url: opencode.url, name: "laptop", password: "e2e-secret" })
      await connections.expectState("laptop", "connected")

      const api = opencodeApi(opencode.url, "e2e-secret")
      const session = await api.createSession()
      const prompt = "Say hello from the inbox"
      model.queue(prompt, bashTurn("echo hello-from-the-inbox"))
      await api.prompt(session.id, prompt)

      const inbox = new InboxPage(page)
      await inbox.shell.open("inbox")
      const card = inbox.askCard("echo hello-from-the-inbox")
      await expect(card).toBeVisible({ timeout: 60_000 })
      await inbox.answer(card, "once")
      await inbox.expectPending(0)
      await expect
        .poll(
          async () =>
            (await api.toolParts(session.id)).find((part) => part.state?.status === "completed")?.state?.output,
          { timeout: 30_000 },
        )
        .toBe("hello-from-the-inbox\n")

      const sessions = new SessionsPage(page)
      await sessions.open()
      await expect(sessions.rows.filter({ hasText: "opencode:laptop" })).toHaveCount(1)
      expect(cspViolations).toEqual([])
    } finally {
      await opencode.stop()
      await model.server.close()
      rmSync(work, { recursive: true, force: true })
    }
  })
})
