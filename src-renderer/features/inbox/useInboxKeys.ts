import { useEffect } from "react"
import { isArmed, useInboxStore } from "../../state/inboxStore"
import { isTyping } from "./keys"
import type { InboxActions } from "./useInboxActions"

/**
 * The inbox's keyboard (see keys.ts), active while the inbox is shown. Letters typed into a text
 * box are never commands. An answer key acts on the selection when there is one, else on the card
 * under the cursor, and only once that card is armed; held-down keys (auto-repeat) answer nothing.
 */
export function useInboxKeys(actions: InboxActions, toggleHelp: () => void, closeHelp: () => void) {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return
      const store = useInboxStore.getState()
      if (event.key === "Escape") {
        if (isTyping(event.target)) return
        closeHelp()
        if (store.composer) store.closeComposer()
        else store.clearSelection()
        return
      }
      if (isTyping(event.target)) return
      const handled = handle(event.key, event.repeat)
      if (handled) event.preventDefault()
    }

    const handle = (key: string, repeat: boolean): boolean => {
      const store = useInboxStore.getState()
      switch (key) {
        case "j":
          store.moveCursor(1)
          return true
        case "k":
          store.moveCursor(-1)
          return true
        case "?":
          toggleHelp()
          return true
      }
      if (!["o", "a", "r", "f", "R", "x"].includes(key)) return false
      if (repeat) return true
      if (store.selected.length > 0 && ["o", "a", "r", "f"].includes(key)) {
        if (key === "f") store.openComposer({ kind: "selection" })
        else void actions.replyMany([...store.selected], key === "o" ? "once" : key === "a" ? "always" : "reject")
        return true
      }
      const item = store.cursor === null ? undefined : store.byId[store.cursor]
      if (!item) return true
      if (key === "x") {
        store.toggleSelected(item.id)
        return true
      }
      if (key === "R") {
        store.openComposer({ kind: "session", sessionID: item.sessionID })
        return true
      }
      // The card just came under the cursor by itself: a key meant for the one before must not answer it.
      if (!isArmed(store, Date.now()) || store.sending[item.id]) return true
      if (item.kind === "question") {
        if (key === "r") void actions.dismissQuestion(item.id)
        return true
      }
      if (key === "f") store.openComposer({ kind: "feedback", id: item.id })
      else void actions.reply(item.id, key === "o" ? "once" : key === "a" ? "always" : "reject")
      return true
    }

    document.addEventListener("keydown", onKeyDown)
    return () => document.removeEventListener("keydown", onKeyDown)
  }, [actions, toggleHelp, closeHelp])
}
