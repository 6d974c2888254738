import { EmptyState } from "../shell/EmptyState"
import { ViewFrame } from "../shell/ViewFrame"

/** Pending asks and questions of every session. */
export function InboxView() {
  return (
    <ViewFrame id="inbox" title="Inbox">
      <EmptyState title="Nothing is waiting for you">
        When an agent&apos;s tool call needs your answer, it waits here, grouped by session, the longest-blocked first.
      </EmptyState>
    </ViewFrame>
  )
}
