import { describe, expect, it } from "vitest"
import { contentSecurityPolicy, type ResponseHeaders } from "@main/electron/csp"
import { hardenSession, type HardenedSession } from "@main/electron/session"
import { IpcServer } from "@main/ipc/IpcServer"

type RequestHandler = Parameters<HardenedSession["setPermissionRequestHandler"]>[0]
type CheckHandler = Parameters<HardenedSession["setPermissionCheckHandler"]>[0]
type HeadersListener = Parameters<HardenedSession["webRequest"]["onHeadersReceived"]>[0]

/** Records what was installed, as Electron's Session would keep it. */
class FakeSession implements HardenedSession {
  request: RequestHandler | undefined
  check: CheckHandler | undefined
  headers: HeadersListener | undefined
  setPermissionRequestHandler(handler: RequestHandler) {
    this.request = handler
  }
  setPermissionCheckHandler(handler: CheckHandler) {
    this.check = handler
  }
  readonly webRequest = {
    onHeadersReceived: (listener: HeadersListener) => {
      this.headers = listener
    },
  }
}

const app = IpcServer.filesOrigin("/opt/gatehouse/out/renderer")
const index = "file:///opt/gatehouse/out/renderer/index.html"

describe("session", () => {
  it("installs default-deny permission handlers for requests and checks", () => {
    const session = new FakeSession()
    hardenSession(session, app)
    let granted: boolean | undefined
    session.request!(null, "media", (value) => (granted = value), { requestingUrl: index })
    expect(granted).toBe(false)
    expect(session.check!(null, "clipboard-read", "file:///", { requestingUrl: index })).toBe(false)
  })

  it("sends the strict CSP as a response header on every response", () => {
    const session = new FakeSession()
    hardenSession(session, app)
    let headers: ResponseHeaders | undefined
    session.headers!({ responseHeaders: { "Content-Security-Policy": ["default-src *"] } }, (response) => {
      headers = response.responseHeaders
    })
    expect(headers).toEqual({ "Content-Security-Policy": [contentSecurityPolicy] })
  })
})
