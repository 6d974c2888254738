import { useMemo } from "react"
import type { ProjectId } from "@contract/ids"
import type { AgentInfo } from "@contract/model"
import {
  groupApprovals,
  selectAnnotations,
  selectApprovalIds,
  selectApprovalsById,
  useApprovalsStore,
  type ApprovalFilter,
  type ProjectGroup,
} from "../../state/approvalsStore"
import { selectProjectIds, useProjectsStore } from "../../state/projectsStore"
import { escapeForDisplay } from "../../lib/escape"
import { ApprovalRow } from "./ApprovalRow"

/** The approvals that pass the filter: project → action → resource. */
export function ApprovalTree({
  filter,
  agents,
}: {
  readonly filter: ApprovalFilter
  readonly agents: ReadonlyArray<AgentInfo> | null
}) {
  const ids = useApprovalsStore(selectApprovalIds)
  const byId = useApprovalsStore(selectApprovalsById)
  const annotations = useApprovalsStore(selectAnnotations)
  const projectIds = useProjectsStore(selectProjectIds)
  const projects = useProjectsStore((state) => state.byId)
  const groups = useMemo(
    () => groupApprovals({ ids, byId, annotations, agents }, filter, (id) => projects[id]?.name, projectIds),
    [ids, byId, annotations, agents, filter, projects, projectIds],
  )
  if (groups.length === 0)
    return (
      <p className="muted" data-testid="approvals-no-match">
        No saved approval matches this filter.
      </p>
    )
  return (
    <div className="approval-tree" data-testid="approval-tree">
      {groups.map((group) => (
        <ProjectSection key={group.projectID} group={group} agents={agents} />
      ))}
    </div>
  )
}

function ProjectSection({
  group,
  agents,
}: {
  readonly group: ProjectGroup
  readonly agents: ReadonlyArray<AgentInfo> | null
}) {
  const project = useProjectsStore((state) => state.byId[group.projectID as ProjectId])
  return (
    <section className="approval-project" data-testid="approval-project" data-project-id={group.projectID}>
      <h2 className="approval-project-title">
        {project ? escapeForDisplay(project.name) : group.projectID}
        {project && <span className="muted mono approval-project-dir">{escapeForDisplay(project.directory)}</span>}
      </h2>
      {group.actions.map((action) => (
        <section
          key={action.action}
          className="approval-action"
          data-testid="approval-action"
          data-action={action.action}
        >
          <h3 className="approval-action-title mono">{escapeForDisplay(action.action)}</h3>
          <table className="table approval-table">
            <thead>
              <tr>
                <th scope="col">Resource pattern</th>
                <th scope="col">Created</th>
                <th scope="col">Origin</th>
                <th scope="col">Hits</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {action.ids.map((id) => (
                <ApprovalRow key={id} id={id} agents={agents} />
              ))}
            </tbody>
          </table>
        </section>
      ))}
    </section>
  )
}
