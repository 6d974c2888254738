import { useState } from "react"
import type { ProjectId, SessionId } from "@contract/ids"
import { useBridge } from "../../bridge/BridgeContext"
import { escapeForDisplay } from "../../lib/escape"
import { formatDateTime } from "../../lib/format"
import { selectIndicator, useConnectionStore } from "../../state/connectionStore"
import { useProjectsStore } from "../../state/projectsStore"
import {
  selectCallKeys,
  selectDecisions,
  selectDetailError,
  selectDetailStatus,
  selectTodos,
  useSessionDetailStore,
} from "../../state/sessionDetailStore"
import { selectSession, useSessionsStore } from "../../state/sessionsStore"
import { ConfirmButton } from "../shell/ConfirmButton"
import { downloadText, exportFileName } from "../shell/download"
import { useNow } from "../shell/useNow"
import { stoppable } from "./timeline"
import { ToolCallItem } from "./ToolCallItem"
import { errorMessage } from "../../lib/errors"

/** One session: its state, the tool-call timeline, its todos and the decisions taken in it. */
export function SessionDetailView({ sessionID }: { readonly sessionID: SessionId }) {
  const session = useSessionsStore(selectSession(sessionID))
  const projectName = useProjectName(session?.projectId)
  const status = useSessionDetailStore(selectDetailStatus)
  const error = useSessionDetailStore(selectDetailError)
  const close = useSessionDetailStore((state) => state.close)
  const reopen = useSessionDetailStore((state) => state.open)

  return (
    <div className="session-detail" data-testid="session-detail" data-session-id={sessionID} data-state={status}>
      <div className="session-detail-bar">
        <button type="button" className="btn" data-testid="session-back" onClick={close}>
          ← All sessions
        </button>
      </div>
      {session ? (
        <header className="session-header">
          <h2 className="session-title" data-testid="session-title">
            {escapeForDisplay(session.title || session.id)}
          </h2>
          <dl className="session-facts">
            <dt>Status</dt>
            <dd>
              <span className={`status status-${session.status}`} data-testid="session-detail-status">
                {session.status}
              </span>
              {session.reason && <span className="muted"> — {escapeForDisplay(session.reason)}</span>}
            </dd>
            <dt>Project</dt>
            <dd>{projectName === undefined ? "…" : escapeForDisplay(projectName)}</dd>
            <dt>Agent</dt>
            <dd>{escapeForDisplay(session.agent)}</dd>
            <dt>Source</dt>
            <dd className="mono">
              {escapeForDisplay(session.source)}
              {session.provider && <span className="muted"> · {escapeForDisplay(session.provider)}</span>}
            </dd>
            <dt>Started</dt>
            <dd>{formatDateTime(session.createdAt)}</dd>
            <dt>Last activity</dt>
            <dd>{formatDateTime(session.updatedAt)}</dd>
          </dl>
          <StopSession sessionID={sessionID} canStop={stoppable.has(session.status)} />
        </header>
      ) : (
        <p className="alert" role="alert">
          This session is not known (any more).
        </p>
      )}
      {status === "error" ? (
        <div className="alert" role="alert" data-testid="session-detail-error">
          Cannot load this session: {error}{" "}
          <button type="button" className="btn" onClick={() => reopen(sessionID)}>
            Try again
          </button>
        </div>
      ) : status === "loading" ? (
        <p className="muted" data-testid="session-detail-loading">
          Loading the session…
        </p>
      ) : (
        <div className="session-sections">
          <Timeline />
          <div className="session-side">
            <Todos />
            <Decisions sessionID={sessionID} />
          </div>
        </div>
      )}
    </div>
  )
}

const useProjectName = (projectId: ProjectId | undefined) =>
  useProjectsStore((state) => (projectId === undefined ? undefined : state.byId[projectId]?.name))

function StopSession({ sessionID, canStop }: { readonly sessionID: SessionId; readonly canStop: boolean }) {
  const bridge = useBridge()
  const live = useConnectionStore(selectIndicator) === "live"
  const [state, setState] = useState<{ readonly busy: boolean; readonly error: string | null }>({
    busy: false,
    error: null,
  })
  if (!canStop) return null
  const stop = () => {
    setState({ busy: true, error: null })
    bridge.invoke("sessions.stop", { sessionID }).then(
      // The status changes when `session.updated` arrives.
      () => setState({ busy: false, error: null }),
      (error: unknown) => setState({ busy: false, error: `Could not stop the session: ${errorMessage(error)}` }),
    )
  }
  return (
    <div className="session-stop">
      <ConfirmButton
        label={state.busy ? "Stopping…" : "Stop session"}
        question="Stop this session? Its pending asks are withdrawn and its running tool calls interrupted."
        confirmLabel="Stop"
        testId="session-stop"
        disabled={!live || state.busy}
        onConfirm={stop}
      />
      {state.error && (
        <p className="field-error" role="alert" data-testid="session-stop-error">
          {state.error}
        </p>
      )}
    </div>
  )
}

function Timeline() {
  const keys = useSessionDetailStore(selectCallKeys)
  const now = useNow(1000)
  return (
    <section className="session-section session-timeline" aria-labelledby="timeline-title">
      <h3 id="timeline-title">Tool calls ({keys.length})</h3>
      {keys.length === 0 ? (
        <p className="muted" data-testid="timeline-empty">
          No tool call yet.
        </p>
      ) : (
        <ol className="timeline" data-testid="timeline">
          {keys.map((key) => (
            <ToolCallItem key={key} callKey={key} now={now} />
          ))}
        </ol>
      )}
    </section>
  )
}

const todoMarks = { pending: "○", in_progress: "◐", completed: "●", cancelled: "✕" } as const

function Todos() {
  const todos = useSessionDetailStore(selectTodos)
  return (
    <section className="session-section" aria-labelledby="todos-title">
      <h3 id="todos-title">Todos</h3>
      {todos.length === 0 ? (
        <p className="muted" data-testid="todos-empty">
          The agent has not written a todo list.
        </p>
      ) : (
        <ul className="todos" data-testid="todos">
          {todos.map((todo, index) => (
            <li key={index} className={`todo todo-${todo.status}`} data-testid="todo" data-status={todo.status}>
              <span className="todo-mark" aria-hidden="true">
                {todoMarks[todo.status]}
              </span>
              <span className="todo-content">{escapeForDisplay(todo.content)}</span>
              <span className="muted todo-meta">
                {todo.status.replace("_", " ")} · {todo.priority}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

function Decisions({ sessionID }: { readonly sessionID: SessionId }) {
  const bridge = useBridge()
  const decisions = useSessionDetailStore(selectDecisions)
  const [exportError, setExportError] = useState<string | null>(null)
  const exportJsonl = () => {
    setExportError(null)
    bridge.invoke("decisions.export", { sessionID }).then(
      (jsonl) => downloadText(exportFileName("decisions", "jsonl"), jsonl, "application/x-ndjson"),
      (error: unknown) => setExportError(`Export failed: ${errorMessage(error)}`),
    )
  }
  return (
    <section className="session-section" aria-labelledby="decisions-title">
      <div className="session-section-head">
        <h3 id="decisions-title">Decisions ({decisions.length})</h3>
        <button
          type="button"
          className="btn"
          data-testid="decisions-export"
          disabled={decisions.length === 0}
          onClick={exportJsonl}
        >
          Export JSONL
        </button>
      </div>
      {exportError && (
        <p className="field-error" role="alert">
          {exportError}
        </p>
      )}
      {decisions.length === 0 ? (
        <p className="muted" data-testid="decisions-empty">
          Nothing was asked in this session.
        </p>
      ) : (
        <ul className="decisions" data-testid="decisions">
          {decisions.map((decision) => (
            <li key={decision.id} className="decision" data-testid="decision" data-status={decision.status}>
              <div>
                <span className="mono">{escapeForDisplay(decision.action)}</span>{" "}
                <span className={`badge decision-${decision.status}`}>{decision.status}</span>
                {decision.decidedBy && <span className="muted"> by {decision.decidedBy}</span>}
                {decision.answeredRemotely && (
                  <span className="muted" data-testid="decision-remote">
                    {" "}
                    in {escapeForDisplay(decision.connector ?? "the agent server")}
                  </span>
                )}
              </div>
              <div className="mono decision-resources">{escapeForDisplay(decision.resources.join("\n"))}</div>
              {decision.feedback && (
                <div className="decision-feedback">
                  <span className="muted">Feedback: </span>
                  {escapeForDisplay(decision.feedback)}
                </div>
              )}
              <div className="muted decision-time">
                asked {formatDateTime(decision.createdAt)}
                {decision.decidedAt !== null && <> · decided {formatDateTime(decision.decidedAt)}</>}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
