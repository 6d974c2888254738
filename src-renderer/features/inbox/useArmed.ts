import { useEffect, useState } from "react"
import { useInboxStore, type InboxItemId } from "../../state/inboxStore"

/**
 * Whether this card is under the cursor and may be answered by keys (see inboxStore's ARM_DELAY_MS).
 * Re-renders the moment it becomes armed, so `data-armed` is a signal tests and people can trust.
 */
export function useArmed(id: InboxItemId): { readonly cursor: boolean; readonly armed: boolean } {
  const armedAt = useInboxStore((state) => (state.cursor === id ? state.armedAt : -1))
  const [, rerender] = useState(0)
  const cursor = armedAt !== -1
  const waiting = cursor ? armedAt - Date.now() : 0
  useEffect(() => {
    if (waiting <= 0) return
    const timer = setTimeout(() => rerender((n) => n + 1), waiting + 1)
    return () => clearTimeout(timer)
  }, [waiting, armedAt])
  return { cursor, armed: cursor && waiting <= 0 }
}
