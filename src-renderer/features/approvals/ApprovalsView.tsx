import { EmptyState } from "../shell/EmptyState"
import { ViewFrame } from "../shell/ViewFrame"

/** Saved approvals by project, action and resource. */
export function ApprovalsView() {
  return (
    <ViewFrame id="approvals" title="Approvals">
      <EmptyState title="No saved approvals">
        When you answer an ask with Always, the approval is saved for its project and listed here, where you can see how
        often it was used and revoke it.
      </EmptyState>
    </ViewFrame>
  )
}
