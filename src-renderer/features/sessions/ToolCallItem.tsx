import { useState } from "react"
import { escapeForDisplay } from "../../lib/escape"
import { formatDuration } from "../../lib/format"
import { useNavigationStore } from "../../state/navigationStore"
import { useOutputViewerStore } from "../../state/outputViewerStore"
import { selectOutputIdAtPath, useOutputsStore } from "../../state/outputsStore"
import { selectCall, useSessionDetailStore } from "../../state/sessionDetailStore"
import { callDuration, inputSummary } from "./timeline"

/** Lines of a result shown before "Show all". */
const PREVIEW_LINES = 12

/** One tool call: what it was asked to do, how it ended, how long it took, where its full output is. */
export function ToolCallItem({ callKey, now }: { readonly callKey: string; readonly now: number }) {
  const call = useSessionDetailStore(selectCall(callKey))
  const [expanded, setExpanded] = useState(false)
  if (!call) return null
  const text = call.status === "error" || call.status === "interrupted" ? (call.error ?? call.preview) : call.preview
  const lines = text === null ? [] : text.split("\n")
  const clipped = !expanded && lines.length > PREVIEW_LINES
  return (
    <li
      className={`tool-call tool-call-${call.status}`}
      data-testid="tool-call"
      data-tool={call.tool}
      data-status={call.status}
    >
      <div className="tool-call-head">
        <span className="tool-call-tool mono">{escapeForDisplay(call.tool)}</span>
        <span className="tool-call-input mono" data-testid="tool-call-input">
          {escapeForDisplay(inputSummary(call.tool, call.input))}
        </span>
        <span
          className={`badge tool-call-status ${call.status === "completed" ? "badge-ok" : call.status === "running" ? "badge-warning" : "badge-danger"}`}
        >
          {call.status}
        </span>
        <span className="muted tool-call-duration" data-testid="tool-call-duration">
          {call.status === "running"
            ? `running ${formatDuration(callDuration(call, now))}`
            : formatDuration(callDuration(call, now))}
        </span>
      </div>
      {text !== null && text !== "" && (
        <pre
          className={`tool-call-result mono ${call.status === "completed" ? "" : "tool-call-result-error"}`}
          data-testid="tool-call-result"
        >
          {escapeForDisplay(clipped ? lines.slice(0, PREVIEW_LINES).join("\n") : text, { multiline: true })}
        </pre>
      )}
      {lines.length > PREVIEW_LINES && (
        <button type="button" className="btn-link" onClick={() => setExpanded(!expanded)}>
          {expanded ? "Show less" : `Show all ${lines.length} lines of the preview`}
        </button>
      )}
      {call.outputPaths.length > 0 && (
        <ul className="tool-call-outputs">
          {call.outputPaths.map((path) => (
            <OutputLink key={path} path={path} />
          ))}
        </ul>
      )}
    </li>
  )
}

/** A spilled output of the call: opens in the Outputs viewer while it is kept. */
function OutputLink({ path }: { readonly path: string }) {
  const id = useOutputsStore(selectOutputIdAtPath(path))
  const lines = useOutputsStore((state) => (id ? state.byId[id]?.lines : undefined))
  const removed = useOutputsStore((state) => (id ? state.removed[id] : undefined))
  const navigate = useNavigationStore((state) => state.navigate)
  const open = useOutputViewerStore((state) => state.open)
  if (!id || removed)
    return (
      <li className="muted" data-testid="tool-call-output-gone">
        Full output {removed === "deleted" ? "deleted" : "no longer kept"} ({escapeForDisplay(path)})
      </li>
    )
  return (
    <li>
      <button
        type="button"
        className="btn-link"
        data-testid="tool-call-output"
        data-output-id={id}
        onClick={() => {
          open(id)
          navigate("outputs")
        }}
      >
        Open the full output{lines === undefined ? "" : ` (${lines.toLocaleString("en-US")} lines)`}
      </button>
    </li>
  )
}
