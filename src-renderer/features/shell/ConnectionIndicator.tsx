import {
  selectIndicator,
  selectInfo,
  selectProblem,
  useConnectionStore,
  type Indicator,
} from "../../state/connectionStore"

const labels: Record<Indicator, string> = { connecting: "Connecting…", live: "Live", offline: "Offline" }

/** Whether the UI shows the present: `data-state` is the signal end-to-end tests wait on. */
export function ConnectionIndicator() {
  const indicator = useConnectionStore(selectIndicator)
  const info = useConnectionStore(selectInfo)
  return (
    <div className="connection" data-testid="connection" data-state={indicator} role="status">
      <span className="connection-dot" aria-hidden="true" />
      <span className="connection-label">{labels[indicator]}</span>
      {info && (
        <span className="connection-info" data-testid="app-info">
          v{info.version} · {info.host === "electron" ? "desktop" : "headless"}
        </span>
      )}
    </div>
  )
}

/** The reason the UI is not live, when there is one a person can act on. */
export function ConnectionProblem() {
  const problem = useConnectionStore(selectProblem)
  if (!problem) return null
  return (
    <p className="connection-problem" data-testid="connection-problem" role="alert">
      {problem}
    </p>
  )
}
