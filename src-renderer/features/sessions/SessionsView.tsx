import { selectDetailSessionId, useSessionDetailStore } from "../../state/sessionDetailStore"
import { ConnectionsPanel } from "../connections/ConnectionsPanel"
import { ViewFrame } from "../shell/ViewFrame"
import { SessionDetailView } from "./SessionDetailView"
import { SessionsTable } from "./SessionsTable"
import { useSessionDetail } from "./useSessionDetail"
import "../shell/controls.css"
import "./sessions.css"

/**
 * The supervised OpenCode servers, then every session with its project, agent, source, status and
 * pending count; or one session's detail.
 */
export function SessionsView() {
  useSessionDetail()
  const open = useSessionDetailStore(selectDetailSessionId)
  return (
    <ViewFrame id="sessions" title="Sessions">
      {open === null ? (
        <>
          <ConnectionsPanel />
          <SessionsTable />
        </>
      ) : (
        <SessionDetailView sessionID={open} />
      )}
    </ViewFrame>
  )
}
