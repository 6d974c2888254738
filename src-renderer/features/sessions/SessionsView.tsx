import type { SessionId } from "@contract/ids"
import { selectProjectName, useProjectsStore } from "../../state/projectsStore"
import { selectSession, selectSessionIds, useSessionsStore } from "../../state/sessionsStore"
import { EmptyState } from "../shell/EmptyState"
import { ViewFrame } from "../shell/ViewFrame"

/** Every session with its project, agent, source and status. */
export function SessionsView() {
  const ids = useSessionsStore(selectSessionIds)
  return (
    <ViewFrame id="sessions" title="Sessions">
      {ids.length === 0 ? (
        <EmptyState title="No sessions yet">
          A session appears here when an agent connects over MCP or when you start one in Gatehouse.
        </EmptyState>
      ) : (
        <table className="table" data-testid="sessions-table">
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Project</th>
              <th scope="col">Agent</th>
              <th scope="col">Source</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {ids.map((id) => (
              <SessionRow key={id} id={id} />
            ))}
          </tbody>
        </table>
      )}
    </ViewFrame>
  )
}

function SessionRow({ id }: { readonly id: SessionId }) {
  const session = useSessionsStore(selectSession(id))
  const projectName = useProjectsStore(selectProjectName(session?.projectId))
  if (!session) return null
  return (
    <tr data-testid="session-row">
      <td>{session.title || session.id}</td>
      <td>{projectName ?? "…"}</td>
      <td>{session.agent}</td>
      <td>{session.source}</td>
      <td>
        <span className={`status status-${session.status}`}>{session.status}</span>
      </td>
    </tr>
  )
}
