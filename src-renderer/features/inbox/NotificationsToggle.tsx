import { useState } from "react"

type Permission = NotificationPermission | "unsupported"

const current = (): Permission => (typeof Notification === "undefined" ? "unsupported" : Notification.permission)

/**
 * Asks for desktop notifications only when the person clicks: never on load. Once decided, it
 * says what was decided (a denial can only be undone in the browser's own settings).
 */
export function NotificationsToggle() {
  const [permission, setPermission] = useState<Permission>(current)
  if (permission === "unsupported") return null
  if (permission === "granted")
    return (
      <span className="inbox-notifications" data-testid="notifications" data-state="granted">
        Notifications on
      </span>
    )
  if (permission === "denied")
    return (
      <span className="inbox-notifications" data-testid="notifications" data-state="denied">
        Notifications blocked by the browser
      </span>
    )
  return (
    <button
      type="button"
      className="button button-small"
      data-testid="notifications"
      data-state="default"
      onClick={() => void Notification.requestPermission().then(setPermission, () => setPermission(current()))}
    >
      Notify me of new asks
    </button>
  )
}
