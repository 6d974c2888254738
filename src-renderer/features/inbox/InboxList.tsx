import { useVirtualizer } from "@tanstack/react-virtual"
import { useEffect, useRef } from "react"
import {
  selectCursorToReveal,
  selectDisplay,
  selectItem,
  useInboxStore,
  type InboxItemId,
} from "../../state/inboxStore"
import { AskCard } from "./AskCard"
import { QuestionCard } from "./QuestionCard"
import { SessionHeader } from "./SessionHeader"

function ItemCard({ id }: { readonly id: InboxItemId }) {
  const item = useInboxStore(selectItem(id))
  if (!item) return null
  return item.kind === "ask" ? <AskCard ask={item} /> : <QuestionCard item={item} />
}

/**
 * Every session and card, virtualized: only the rows on screen (and a few around them) exist in
 * the DOM, each measured as it renders, so 10 000 pending items scroll like ten.
 */
export function InboxList() {
  const scroller = useRef<HTMLDivElement>(null)
  const display = useInboxStore(selectDisplay)
  const cursor = useInboxStore(selectCursorToReveal)
  const rows = display.rows
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => (rows[index]?.kind === "session" ? 64 : 240),
    getItemKey: (index) => rows[index]?.key ?? index,
    overscan: 4,
  })

  // Keep the card under the cursor on screen when keys move it (or its card leaves).
  const cursorRow = cursor === null ? undefined : display.rowIndex.get(cursor)
  useEffect(() => {
    if (cursorRow !== undefined) virtualizer.scrollToIndex(cursorRow, { align: "auto" })
  }, [cursorRow, virtualizer])

  // "Reject all" opens in the session's header, which may be scrolled away: bring it into view.
  const composingSession = useInboxStore((state) =>
    state.composer?.kind === "session" ? state.composer.sessionID : null,
  )
  const headerRow =
    composingSession === null
      ? -1
      : rows.findIndex((row) => row.kind === "session" && row.group.sessionID === composingSession)
  useEffect(() => {
    if (headerRow >= 0) virtualizer.scrollToIndex(headerRow, { align: "start" })
  }, [headerRow, virtualizer])

  return (
    <div
      ref={scroller}
      className="inbox-scroll"
      data-testid="inbox-list"
      data-count={display.order.length}
      tabIndex={-1}
    >
      <div className="inbox-canvas" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((virtual) => {
          const row = rows[virtual.index]
          if (!row) return null
          return (
            <div
              key={virtual.key}
              data-index={virtual.index}
              ref={virtualizer.measureElement}
              className="inbox-row"
              style={{ transform: `translateY(${virtual.start}px)` }}
            >
              {row.kind === "session" ? <SessionHeader group={row.group} /> : <ItemCard id={row.id} />}
            </div>
          )
        })}
      </div>
    </div>
  )
}
