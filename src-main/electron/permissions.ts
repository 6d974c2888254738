import { isAppUrl, type AppOrigin } from "@main/ipc/IpcServer"

// Electron grants every permission request unless a handler says otherwise (checklist #5).

/**
 * Permissions the app's own pages may use: only desktop notifications, which the inbox uses to
 * announce new asks while the window is not focused. Nothing needs the camera, geolocation or the
 * clipboard API. Adding one here is a reviewed change.
 */
export const allowedPermissions: ReadonlySet<string> = new Set(["notifications"])

/** Grants only an allowlisted permission, and only to the app's own pages. */
export function isPermissionGranted(permission: string, requestingUrl: string | undefined, app: AppOrigin): boolean {
  return allowedPermissions.has(permission) && isAppUrl(requestingUrl, app)
}

/** For `session.setPermissionRequestHandler`: answers every request, default deny. */
export const permissionRequestHandler =
  (app: AppOrigin) =>
  (
    _webContents: unknown,
    permission: string,
    callback: (granted: boolean) => void,
    details: { readonly requestingUrl?: string },
  ): void =>
    callback(isPermissionGranted(permission, details.requestingUrl, app))

/** For `session.setPermissionCheckHandler`: the synchronous "is it already granted?" query, default deny. */
export const permissionCheckHandler =
  (app: AppOrigin) =>
  (
    _webContents: unknown,
    permission: string,
    _requestingOrigin: string,
    details: { readonly requestingUrl?: string },
  ): boolean =>
    isPermissionGranted(permission, details.requestingUrl, app)
