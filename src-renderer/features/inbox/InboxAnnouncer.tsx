import { useEffect } from "react"
import { selectPendingCount, useInboxStore, type InboxItem } from "../../state/inboxStore"
import { useNavigationStore } from "../../state/navigationStore"
import { notificationFor, titleFor } from "./announce"

/** Notifications of one burst are merged: at most one per this many milliseconds. */
const NOTIFY_EVERY_MS = 1500

const inFront = () => document.visibilityState === "visible" && document.hasFocus()

/**
 * Keeps the window title's pending count (and `data-pending-count` on <html>) current, and shows a
 * desktop notification for new items while the window is not in front. Mounted once, in the shell,
 * so it works whichever view is open. Renders nothing.
 */
export function InboxAnnouncer() {
  const count = useInboxStore(selectPendingCount)

  useEffect(() => {
    document.title = titleFor(count)
    document.documentElement.dataset.pendingCount = String(count)
  }, [count])

  useEffect(() => {
    if (typeof Notification === "undefined") return
    let waiting: Array<InboxItem> = []
    let timer: ReturnType<typeof setTimeout> | undefined
    let shownAt = 0
    const flush = () => {
      timer = undefined
      shownAt = Date.now()
      const items = waiting.filter((item) => useInboxStore.getState().byId[item.id] !== undefined)
      waiting = []
      if (items.length === 0 || inFront() || Notification.permission !== "granted") return
      const { title, body } = notificationFor(items)
      const notification = new Notification(title, { body, tag: "gatehouse-inbox" })
      notification.onclick = () => {
        window.focus()
        useNavigationStore.getState().navigate("inbox")
        const first = items.find((item) => useInboxStore.getState().byId[item.id] !== undefined)
        if (first) useInboxStore.getState().setCursor(first.id)
        notification.close()
      }
    }
    const unsubscribe = useInboxStore.subscribe((state, previous) => {
      if (state.ids === previous.ids || inFront()) return
      const fresh = state.ids.filter((id) => previous.byId[id] === undefined)
      if (fresh.length === 0) return
      for (const id of fresh) {
        const item = state.byId[id]
        if (item) waiting.push(item)
      }
      timer ??= setTimeout(flush, Math.max(0, shownAt + NOTIFY_EVERY_MS - Date.now()))
    })
    return () => {
      unsubscribe()
      clearTimeout(timer)
    }
  }, [])

  return null
}
