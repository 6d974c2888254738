import { escapeForDisplay } from "../../lib/escape"
import type { InboxItem } from "../../state/inboxStore"

// How the inbox announces itself outside its own view: the window title carries the pending count
// (`(3) Gatehouse`), which is also how the Electron main process can learn it for the dock or
// taskbar badge without the renderer calling anything Electron-specific: main listens to the
// window's `page-title-updated` event and reads the count with `countFromTitle` (see README.md).

export const APP_TITLE = "Gatehouse"

/** The window title for `count` pending items. */
export const titleFor = (count: number) => (count > 0 ? `(${count}) ${APP_TITLE}` : APP_TITLE)

/** The pending count a title made by {@link titleFor} carries (0 for any other title). */
export function countFromTitle(title: string): number {
  const match = /^\((\d+)\) /.exec(title)
  return match ? Number(match[1]) : 0
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

/** One line about an item for a notification: escaped, short, never raw agent text. */
export function describeItem(item: InboxItem): string {
  if (item.kind === "question")
    return clip(`Question: ${escapeForDisplay(item.request.questions[0]?.question ?? "")}`, 160)
  const tool = item.call?.tool ?? item.request.action
  return clip(`${escapeForDisplay(tool)}: ${escapeForDisplay(item.request.resources.join(" "))}`, 160)
}

/** The notification for items that arrived while the window was not in front. */
export function notificationFor(items: ReadonlyArray<InboxItem>): { readonly title: string; readonly body: string } {
  const [first] = items
  if (items.length === 1 && first)
    return {
      title: first.kind === "question" ? "A question is waiting" : "An ask is waiting",
      body: describeItem(first),
    }
  return {
    title: `${items.length} new asks are waiting`,
    body: items.slice(0, 3).map(describeItem).join("\n"),
  }
}
