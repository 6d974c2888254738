import { isAppUrl, type AppOrigin } from "@main/ipc/IpcServer"

// Navigation and window policy for every web contents (Electron security checklist #13, #14).

/** A page may navigate only to the app's own pages; links, redirects and `javascript:` stay out. */
export const isAllowedNavigation = (url: string, app: AppOrigin): boolean => isAppUrl(url, app)

export interface WindowOpenResponse {
  readonly action: "deny"
}

/**
 * `window.open` and `target=_blank` never create a window, not even for the app's own URL: a new
 * window would not come from the one factory in windows.ts and so could lack its hardening.
 */
export const denyWindowOpen = (): WindowOpenResponse => ({ action: "deny" })

/** A cancellable Electron event (`will-navigate` and friends). */
export interface NavigationEvent {
  readonly url?: string
  preventDefault(): void
}

/** The part of Electron's `WebContents` the guard uses. */
export interface GuardedContents {
  on(
    event: "will-navigate" | "will-redirect" | "will-frame-navigate",
    listener: (event: NavigationEvent) => void,
  ): unknown
  on(event: "will-attach-webview", listener: (event: NavigationEvent) => void): unknown
  setWindowOpenHandler(handler: () => WindowOpenResponse): void
}

/**
 * Applies the policy to one web contents: top-level and frame navigations (and their redirects) to
 * anything but the app are cancelled, new windows are denied and webviews never attach.
 */
export function guardWebContents(contents: GuardedContents, app: AppOrigin): void {
  const guard = (event: NavigationEvent) => {
    if (!isAllowedNavigation(event.url ?? "", app)) event.preventDefault()
  }
  contents.on("will-navigate", guard)
  contents.on("will-frame-navigate", guard)
  contents.on("will-redirect", guard)
  contents.on("will-attach-webview", (event) => event.preventDefault())
  contents.setWindowOpenHandler(denyWindowOpen)
}
