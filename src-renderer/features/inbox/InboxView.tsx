import { useCallback, useState, type ReactNode } from "react"
import { selectIndicator, selectProblem, useConnectionStore } from "../../state/connectionStore"
import { selectNotice, selectPendingCount, useInboxStore } from "../../state/inboxStore"
import { EmptyState } from "../shell/EmptyState"
import { ViewFrame } from "../shell/ViewFrame"
import { BulkBar } from "./BulkBar"
import { InboxList } from "./InboxList"
import { KeyHelp } from "./KeyHelp"
import { NotificationsToggle } from "./NotificationsToggle"
import { useInboxActions } from "./useInboxActions"
import { useInboxKeys } from "./useInboxKeys"
import "./inbox.css"

function Notice() {
  const notice = useInboxStore(selectNotice)
  const dismiss = useInboxStore((state) => state.dismissNotice)
  if (!notice) return null
  return (
    <div className="inbox-notice" role="status" data-testid="inbox-notice">
      <span>{notice}</span>
      <button type="button" className="button button-small" onClick={dismiss}>
        OK
      </button>
    </div>
  )
}

/** The inbox is only as fresh as the connection: say so when it is not live. */
function Staleness(): ReactNode {
  const indicator = useConnectionStore(selectIndicator)
  const problem = useConnectionStore(selectProblem)
  if (indicator === "live") return null
  return (
    <p className="inbox-stale" role="alert" data-testid="inbox-error" data-state={indicator}>
      {indicator === "offline"
        ? "Not connected to Gatehouse: what you see may be out of date, and answers cannot be sent."
        : (problem ?? "Loading the inbox…")}
    </p>
  )
}

/** Pending asks and questions of every session, the longest-blocked session first. */
export function InboxView() {
  const count = useInboxStore(selectPendingCount)
  const indicator = useConnectionStore(selectIndicator)
  const actions = useInboxActions()
  const [help, setHelp] = useState(false)
  const toggleHelp = useCallback(() => setHelp((shown) => !shown), [])
  const closeHelp = useCallback(() => setHelp(false), [])
  useInboxKeys(actions, toggleHelp, closeHelp)
  return (
    <ViewFrame id="inbox" title="Inbox">
      <div className="inbox" data-testid="inbox" data-count={count} data-state={indicator}>
        <div className="inbox-toolbar">
          <span className="inbox-count" data-testid="inbox-count">
            {count === 1 ? "1 waiting" : `${count} waiting`}
          </span>
          <NotificationsToggle />
          <button type="button" className="button button-small" data-testid="show-keys" onClick={toggleHelp}>
            Keys <kbd>?</kbd>
          </button>
        </div>
        <Staleness />
        <Notice />
        {help && <KeyHelp onClose={closeHelp} />}
        <BulkBar actions={actions} />
        {count === 0 ? (
          indicator === "live" && (
            <EmptyState title="Nothing is waiting for you">
              When an agent&apos;s tool call needs your answer, it waits here, grouped by session, the longest-blocked
              first.
            </EmptyState>
          )
        ) : (
          <InboxList />
        )}
      </div>
    </ViewFrame>
  )
}
