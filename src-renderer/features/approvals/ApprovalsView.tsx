import { useState } from "react"
import {
  selectApprovalCount,
  selectApprovalsProblem,
  useApprovalsStore,
  noApprovalFilter,
} from "../../state/approvalsStore"
import { EmptyState } from "../shell/EmptyState"
import { ViewFrame } from "../shell/ViewFrame"
import { AddApprovalForm } from "./AddApprovalForm"
import { AgentRules } from "./AgentRules"
import { ApprovalsToolbar } from "./ApprovalsToolbar"
import { ApprovalTree } from "./ApprovalTree"
import { useAgents, useApprovalAnnotations } from "./useApprovalsData"
import "../shell/controls.css"
import "./approvals.css"

/** Saved approvals by project, action and resource, beside the configured agent rules. */
export function ApprovalsView() {
  useApprovalAnnotations()
  const agents = useAgents()
  const count = useApprovalsStore(selectApprovalCount)
  const problem = useApprovalsStore(selectApprovalsProblem)
  const [filter, setFilter] = useState(noApprovalFilter)
  const [adding, setAdding] = useState(false)
  return (
    <ViewFrame id="approvals" title="Approvals">
      {problem && (
        <p className="alert" role="alert" data-testid="approvals-problem">
          {problem}
        </p>
      )}
      <div className="approvals-layout">
        <div className="approvals-main">
          <ApprovalsToolbar filter={filter} onFilter={setFilter} adding={adding} onAdd={() => setAdding(true)} />
          {adding && <AddApprovalForm onClose={() => setAdding(false)} />}
          {count === 0 ? (
            <EmptyState title="No saved approvals">
              When you answer an ask with Always, the approval is saved for its project and listed here, where you can
              see how often it was used and revoke it. You can also add one by hand.
            </EmptyState>
          ) : (
            <ApprovalTree filter={filter} agents={agents} />
          )}
        </div>
        <AgentRules agents={agents} />
      </div>
    </ViewFrame>
  )
}
