import { useMemo, useState } from "react"
import type { ProjectId, SessionId } from "@contract/ids"
import { SessionStatus } from "@contract/model"
import { escapeForDisplay } from "../../lib/escape"
import { formatAge } from "../../lib/time"
import { formatDateTime } from "../../lib/format"
import { useInboxStore } from "../../state/inboxStore"
import { selectProjectIds, useProjectsStore } from "../../state/projectsStore"
import { useSessionDetailStore } from "../../state/sessionDetailStore"
import { selectSession, selectSessionIds, useSessionsStore } from "../../state/sessionsStore"
import { EmptyState } from "../shell/EmptyState"
import { useNow } from "../shell/useNow"
import { filterSessions, noSessionFilter, pendingBySession, type SessionFilter } from "./timeline"

const statuses = SessionStatus.literals

/** The sessions table with its status and project filters; a row opens the session's detail. */
export function SessionsTable() {
  const ids = useSessionsStore(selectSessionIds)
  const byId = useSessionsStore((state) => state.byId)
  const projectIds = useProjectsStore(selectProjectIds)
  const projects = useProjectsStore((state) => state.byId)
  const inboxIds = useInboxStore((state) => state.ids)
  const inboxItems = useInboxStore((state) => state.byId)
  const [filter, setFilter] = useState<SessionFilter>(noSessionFilter)
  const shown = useMemo(() => filterSessions(ids, byId, filter), [ids, byId, filter])
  const pending = useMemo(() => pendingBySession(inboxIds, inboxItems), [inboxIds, inboxItems])
  const now = useNow(15_000)

  if (ids.length === 0)
    return (
      <EmptyState title="No sessions yet">
        A session appears here when an agent connects over MCP or when you start one in Gatehouse.
      </EmptyState>
    )

  return (
    <>
      <div className="toolbar" role="search" aria-label="Filter sessions">
        <label className="field">
          Status
          <select
            data-testid="sessions-status-filter"
            value={filter.status ?? ""}
            onChange={(event) =>
              setFilter({ ...filter, status: event.target.value === "" ? null : (event.target.value as SessionStatus) })
            }
          >
            <option value="">Any status</option>
            {statuses.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Project
          <select
            data-testid="sessions-project-filter"
            value={filter.projectID ?? ""}
            onChange={(event) =>
              setFilter({ ...filter, projectID: event.target.value === "" ? null : (event.target.value as ProjectId) })
            }
          >
            <option value="">All projects</option>
            {projectIds.map((id) => (
              <option key={id} value={id}>
                {escapeForDisplay(projects[id]?.name ?? id)}
              </option>
            ))}
          </select>
        </label>
        <span className="muted" data-testid="sessions-count">
          {shown.length} of {ids.length} session{ids.length === 1 ? "" : "s"}
        </span>
      </div>
      {shown.length === 0 ? (
        <p className="muted" data-testid="sessions-no-match">
          No session matches this filter.
        </p>
      ) : (
        <table className="table" data-testid="sessions-table">
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Project</th>
              <th scope="col">Agent</th>
              <th scope="col">Source</th>
              <th scope="col">Status</th>
              <th scope="col" className="numeric">
                Pending
              </th>
              <th scope="col">Last activity</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((id) => (
              <SessionRow key={id} id={id} pending={pending.get(id) ?? 0} now={now} />
            ))}
          </tbody>
        </table>
      )}
    </>
  )
}

const lastActivity = (ms: number) => {
  const age = formatAge(ms)
  return age === "now" ? "just now" : `${age} ago`
}

function SessionRow({ id, pending, now }: { readonly id: SessionId; readonly pending: number; readonly now: number }) {
  const session = useSessionsStore(selectSession(id))
  const projectName = useProjectsStore((state) => (session ? state.byId[session.projectId]?.name : undefined))
  const open = useSessionDetailStore((state) => state.open)
  if (!session) return null
  return (
    <tr data-testid="session-row" data-session-id={id} data-status={session.status}>
      <td>
        <button type="button" className="btn-link" data-testid="session-open" onClick={() => open(id)}>
          {escapeForDisplay(session.title || session.id)}
        </button>
      </td>
      <td>{projectName === undefined ? "…" : escapeForDisplay(projectName)}</td>
      <td>{escapeForDisplay(session.agent)}</td>
      <td className="mono">{escapeForDisplay(session.source)}</td>
      <td>
        <span className={`status status-${session.status}`} data-testid="session-status">
          {session.status}
        </span>
      </td>
      <td className="numeric" data-testid="session-pending">
        {pending > 0 ? <span className="badge badge-warning">{pending}</span> : <span className="muted">0</span>}
      </td>
      <td title={formatDateTime(session.updatedAt)}>{lastActivity(now - session.updatedAt)}</td>
    </tr>
  )
}
