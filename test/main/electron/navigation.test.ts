import { EventEmitter } from "node:events"
import { describe, expect, it } from "vitest"
import { denyWindowOpen, guardWebContents, isAllowedNavigation } from "@main/electron/navigation"
import { IpcServer } from "@main/ipc/IpcServer"

const rendererDir = "/opt/gatehouse/out/renderer"
const app = IpcServer.filesOrigin(rendererDir)
const index = `file://${rendererDir}/index.html`

/** A web contents that records what the guard installed; `navigate` plays Electron's cancellable event. */
class FakeContents extends EventEmitter {
  openHandler: (() => { action: string }) | undefined
  setWindowOpenHandler(handler: () => { action: "deny" }) {
    this.openHandler = handler
  }
  navigate(event: "will-navigate" | "will-redirect" | "will-frame-navigate" | "will-attach-webview", url: string) {
    let prevented = false
    this.emit(event, { url, preventDefault: () => (prevented = true) })
    return prevented
  }
}

describe("navigation", () => {
  // RELIABILITY §7 row 6: nothing but the app itself.
  const urls: ReadonlyArray<readonly [string, boolean]> = [
    [index, true],
    [`${index}#/approvals`, true],
    [`file://${rendererDir}/assets/index-abc.js`, true],
    ["https://app.origin.evil/", false],
    ["https://example.com/", false],
    ["http://127.0.0.1:7317@evil.com/", false],
    ["http://127.0.0.1:7317/", false],
    ["javascript:alert(document.domain)", false],
    ["JAVASCRIPT:alert(1)", false],
    ["file:///etc/passwd", false],
    [`file://${rendererDir}/../../../../etc/passwd`, false],
    [`file://${rendererDir}-evil/index.html`, false],
    ["data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", false],
    ["devtools://devtools/bundled/inspector.html", false],
    ["about:blank", false],
    ["chrome://settings", false],
    ["https://xn--80ak6aa92e.com/", false],
    ["https://аррӏе.com/", false],
    ["HTTPS://EVIL.COM/", false],
    ["FILE:///etc/passwd", false],
    ["blob:file:///0c4e-1", false],
    ["", false],
    ["not a url", false],
  ]
  for (const [url, allowed] of urls) {
    it(`${allowed ? "allows" : "denies"} navigation to ${JSON.stringify(url)}`, () => {
      expect(isAllowedNavigation(url, app)).toBe(allowed)
    })
  }

  it("denies every window.open, including the app's own URL", () => {
    expect(denyWindowOpen()).toEqual({ action: "deny" })
  })

  it("cancels foreign navigations, frame navigations and redirects on a guarded web contents", () => {
    const contents = new FakeContents()
    guardWebContents(contents, app)
    for (const event of ["will-navigate", "will-frame-navigate", "will-redirect"] as const) {
      expect(contents.navigate(event, "https://evil.example/")).toBe(true)
      expect(contents.navigate(event, `${index}#/inbox`)).toBe(false)
    }
  })

  it("never lets a webview attach and denies new windows on a guarded web contents", () => {
    const contents = new FakeContents()
    guardWebContents(contents, app)
    expect(contents.navigate("will-attach-webview", index)).toBe(true)
    expect(contents.openHandler?.()).toEqual({ action: "deny" })
  })
})
