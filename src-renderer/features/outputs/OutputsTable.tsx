import { useState } from "react"
import type { SessionId, ToolOutputId } from "@contract/ids"
import { useBridge } from "../../bridge/BridgeContext"
import { escapeForDisplay } from "../../lib/escape"
import { formatBytes, formatCount, formatDateTime } from "../../lib/format"
import { useOutputViewerStore } from "../../state/outputViewerStore"
import {
  retentionLabel,
  retentionOf,
  selectOutput,
  selectOutputIds,
  selectRemoval,
  useOutputsStore,
} from "../../state/outputsStore"
import { useSessionDetailStore } from "../../state/sessionDetailStore"
import { useNavigationStore } from "../../state/navigationStore"
import { useSessionsStore } from "../../state/sessionsStore"
import { ConfirmButton } from "../shell/ConfirmButton"
import { EmptyState } from "../shell/EmptyState"
import { useNow } from "../shell/useNow"
import { errorMessage } from "../../lib/errors"

/** Every kept output with its session, tool, size, age and how long it is kept. */
export function OutputsTable() {
  const ids = useOutputsStore(selectOutputIds)
  const now = useNow(60_000)
  if (ids.length === 0)
    return (
      <EmptyState title="No kept outputs">
        Tool outputs over 2000 lines or 50 KB are saved in full for 7 days. The model sees a preview; you can read the
        whole output here.
      </EmptyState>
    )
  return (
    <table className="table" data-testid="outputs-table">
      <thead>
        <tr>
          <th scope="col">Output</th>
          <th scope="col">Session</th>
          <th scope="col">Tool</th>
          <th scope="col" className="numeric">
            Size
          </th>
          <th scope="col" className="numeric">
            Lines
          </th>
          <th scope="col">Created</th>
          <th scope="col">Retention</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {ids.map((id) => (
          <OutputRow key={id} id={id} now={now} />
        ))}
      </tbody>
    </table>
  )
}

function OutputRow({ id, now }: { readonly id: ToolOutputId; readonly now: number }) {
  const output = useOutputsStore(selectOutput(id))
  const removal = useOutputsStore(selectRemoval(id))
  const open = useOutputViewerStore((state) => state.open)
  const { remove, busy, error } = useDeleteOutput(id)
  if (!output) return null
  const retention = retentionOf(output, removal, now)
  const gone = retention.kind === "deleted" || removal === "expired"
  return (
    <tr data-testid="output-row" data-output-id={id} data-retention={retention.kind}>
      <td>
        {gone ? (
          <span className="mono muted">{id}</span>
        ) : (
          <button type="button" className="btn-link mono" data-testid="output-open" onClick={() => open(id)}>
            {id}
          </button>
        )}
      </td>
      <td>
        <SessionCell sessionID={output.sessionId} />
      </td>
      <td className="mono">
        {output.tool === null ? <span className="muted">—</span> : escapeForDisplay(output.tool)}
      </td>
      <td className="numeric" data-testid="output-bytes">
        {formatBytes(output.bytes)}
      </td>
      <td className="numeric" data-testid="output-lines">
        {formatCount(output.lines)}
      </td>
      <td className="nowrap">{formatDateTime(output.createdAt)}</td>
      <td>
        <span
          className={`badge ${retention.kind === "expires" ? "" : retention.kind === "today" ? "badge-warning" : "badge-danger"}`}
          data-testid="output-retention"
          title={`Kept until ${formatDateTime(output.expiresAt)}`}
        >
          {retentionLabel(retention)}
        </span>
      </td>
      <td className="output-actions">
        {!gone && (
          <ConfirmButton
            label="Delete"
            question="Delete this output now?"
            confirmLabel="Delete"
            testId="output-delete"
            disabled={busy}
            onConfirm={remove}
          />
        )}
        {error && (
          <p className="field-error" role="alert" data-testid="output-delete-error">
            {error}
          </p>
        )}
      </td>
    </tr>
  )
}

/** The session an output came from, as a link to its detail. */
export function SessionCell({ sessionID }: { readonly sessionID: SessionId | null }) {
  const session = useSessionsStore((state) => (sessionID === null ? undefined : state.byId[sessionID]))
  const openSession = useSessionDetailStore((state) => state.open)
  const navigate = useNavigationStore((state) => state.navigate)
  if (sessionID === null) return <span className="muted">—</span>
  if (!session) return <span className="mono muted">{sessionID}</span>
  return (
    <button
      type="button"
      className="btn-link"
      data-testid="output-session"
      onClick={() => {
        openSession(session.id)
        navigate("sessions")
      }}
    >
      {escapeForDisplay(session.title || session.id)}
    </button>
  )
}

/** Deletes an output; the row changes when `tool_output.deleted` arrives. */
export function useDeleteOutput(id: ToolOutputId) {
  const bridge = useBridge()
  const [state, setState] = useState<{ readonly busy: boolean; readonly error: string | null }>({
    busy: false,
    error: null,
  })
  const remove = () => {
    setState({ busy: true, error: null })
    bridge.invoke("outputs.delete", { id }).then(
      () => setState({ busy: false, error: null }),
      (error: unknown) => setState({ busy: false, error: `Could not delete: ${errorMessage(error)}` }),
    )
  }
  return { remove, ...state }
}
