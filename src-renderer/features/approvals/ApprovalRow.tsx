import { useState } from "react"
import type { SavedApprovalId } from "@contract/ids"
import type { AgentInfo, ApprovalShadow } from "@contract/model"
import { useBridge } from "../../bridge/BridgeContext"
import { escapeForDisplay } from "../../lib/escape"
import { formatCount, formatDateTime } from "../../lib/format"
import {
  selectAnnotation,
  selectApproval,
  shadowSeverity,
  useApprovalsStore,
  type Annotation,
  type ShadowSeverity,
} from "../../state/approvalsStore"
import { useNavigationStore } from "../../state/navigationStore"
import { useSessionDetailStore } from "../../state/sessionDetailStore"
import { useSessionsStore } from "../../state/sessionsStore"
import { ConfirmButton } from "../shell/ConfirmButton"
import { EditPatternForm } from "./EditPatternForm"
import { errorMessage } from "../../lib/errors"

/** One saved approval: its pattern (editable), when and where it came from, how much it is used. */
export function ApprovalRow({
  id,
  agents,
}: {
  readonly id: SavedApprovalId
  readonly agents: ReadonlyArray<AgentInfo> | null
}) {
  const bridge = useBridge()
  const approval = useApprovalsStore(selectApproval(id))
  const annotation = useApprovalsStore(selectAnnotation(id))
  const [editing, setEditing] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [revoking, setRevoking] = useState(false)
  if (!approval) return null
  const current = annotation?.resource === approval.resource ? annotation : undefined
  const severity = current ? shadowSeverity(current.shadowedBy, agents) : "none"

  const revoke = () => {
    setRevoking(true)
    setError(null)
    bridge.invoke("approvals.remove", { id }).then(
      // The row leaves when `approval.removed` arrives.
      () => undefined,
      (failure: unknown) => {
        setRevoking(false)
        setError(`Could not revoke: ${errorMessage(failure)}`)
      },
    )
  }

  return (
    <tr
      className="approval-row"
      data-testid="approval-row"
      data-approval-id={id}
      data-resource={approval.resource}
      data-shadowed={severity === "primary" || severity === "all" ? "true" : "false"}
      data-shadow={severity}
    >
      <td className="approval-resource">
        {editing ? (
          <EditPatternForm id={id} initial={approval.resource} onDone={() => setEditing(false)} />
        ) : (
          <code className="mono" data-testid="approval-resource">
            {escapeForDisplay(approval.resource)}
          </code>
        )}
        {current && severity !== "none" && <ShadowFlag shadows={current.shadowedBy} severity={severity} />}
        {error && (
          <p className="field-error" role="alert" data-testid="approval-row-error">
            {error}
          </p>
        )}
      </td>
      <td className="approval-time">{formatDateTime(approval.createdAt)}</td>
      <td>
        <Origin requestID={approval.requestID} annotation={current} />
      </td>
      <td className="numeric" data-testid="approval-hits">
        {formatCount(approval.hitCount)}
      </td>
      <td className="approval-time" data-testid="approval-last-used">
        {approval.lastUsedAt === null ? <span className="muted">never</span> : formatDateTime(approval.lastUsedAt)}
      </td>
      <td>
        <div className="approval-actions">
          {!editing && (
            <button type="button" className="btn" data-testid="approval-edit" onClick={() => setEditing(true)}>
              Edit
            </button>
          )}
          <ConfirmButton
            label="Revoke"
            question="Revoke this approval?"
            confirmLabel="Revoke"
            testId="approval-revoke"
            disabled={revoking}
            onConfirm={revoke}
          />
        </div>
      </td>
    </tr>
  )
}

const flagText: Record<Exclude<ShadowSeverity, "none">, (agents: string) => string> = {
  all: () => "Ineffective: every agent's rules deny it",
  primary: (agents) => `Ineffective for ${agents}`,
  subagents: (agents) => `Not used by ${agents}`,
}

/**
 * A configured deny decides this approval's action and resource for these agents, so it does
 * nothing there. Red when no agent can use it, amber when a primary agent cannot, a quiet note
 * when only subagents' rules deny it.
 */
function ShadowFlag({
  shadows,
  severity,
}: {
  readonly shadows: ReadonlyArray<ApprovalShadow>
  readonly severity: Exclude<ShadowSeverity, "none">
}) {
  const badge = severity === "all" ? "badge badge-danger" : severity === "primary" ? "badge badge-warning" : "badge"
  return (
    <div className="approval-shadow" data-testid="approval-shadowed" data-severity={severity}>
      <span className={badge}>{flagText[severity](shadows.map((shadow) => shadow.agent).join(", "))}</span>
      <ul className="approval-shadow-rules">
        {shadows.map((shadow) => (
          <li key={shadow.agent} data-testid="approval-shadow-rule">
            <span className="muted">{shadow.agent}: configured rule </span>
            <code className="mono">
              {escapeForDisplay(shadow.rule.action)} {escapeForDisplay(shadow.rule.resource)} → {shadow.rule.effect}
            </code>
          </li>
        ))}
      </ul>
    </div>
  )
}

/** Where the approval came from: the ask whose Always saved it (and its session), or a person's hand. */
function Origin({
  requestID,
  annotation,
}: {
  readonly requestID: string | null
  readonly annotation: Annotation | undefined
}) {
  const sessionID = annotation?.origin?.sessionID
  const session = useSessionsStore((state) => (sessionID === undefined ? undefined : state.byId[sessionID]))
  const navigate = useNavigationStore((state) => state.navigate)
  const openSession = useSessionDetailStore((state) => state.open)
  if (requestID === null) return <span className="muted">Added by hand</span>
  if (!annotation) return <span className="muted">…</span>
  const origin = annotation.origin
  if (!origin)
    return (
      <span className="muted" data-testid="approval-origin">
        Always on ask <span className="mono">{requestID}</span> (no longer in the log)
      </span>
    )
  return (
    <span data-testid="approval-origin" title={`Saved by Always on ask ${origin.requestID}`}>
      Always on <code className="mono">{escapeForDisplay(origin.resources.join(", "))}</code>
      <br />
      <span className="muted">in session </span>
      <button
        type="button"
        className="btn-link"
        data-testid="approval-origin-session"
        onClick={() => {
          openSession(origin.sessionID)
          navigate("sessions")
        }}
      >
        {session ? escapeForDisplay(session.title || session.id) : origin.sessionID}
      </button>
    </span>
  )
}
