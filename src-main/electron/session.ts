import type { AppOrigin } from "@main/ipc/IpcServer"
import { withContentSecurityPolicy, type ResponseHeaders } from "./csp"
import { permissionCheckHandler, permissionRequestHandler } from "./permissions"

/** The part of Electron's `Session` that is hardened. */
export interface HardenedSession {
  setPermissionRequestHandler(
    handler: (
      webContents: unknown,
      permission: string,
      callback: (granted: boolean) => void,
      details: { readonly requestingUrl?: string },
    ) => void,
  ): void
  setPermissionCheckHandler(
    handler: (
      webContents: unknown,
      permission: string,
      requestingOrigin: string,
      details: { readonly requestingUrl?: string },
    ) => boolean,
  ): void
  readonly webRequest: {
    onHeadersReceived(
      listener: (
        details: { readonly responseHeaders?: ResponseHeaders },
        callback: (response: { readonly responseHeaders?: ResponseHeaders }) => void,
      ) => void,
    ): void
  }
}

/**
 * Default-deny permissions (request and check) and the strict CSP as a response header. Called on
 * each session before any page loads. The handler calls are written without `?.`: Electronegativity
 * does not recognise an optionally chained `setPermissionRequestHandler` (RELIABILITY.md §1.2).
 */
export function hardenSession(session: HardenedSession, app: AppOrigin): void {
  session.setPermissionRequestHandler(permissionRequestHandler(app))
  session.setPermissionCheckHandler(permissionCheckHandler(app))
  session.webRequest.onHeadersReceived((details, callback) =>
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders) }),
  )
}
