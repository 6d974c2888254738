import { useState } from "react"
import type { ConnectorState } from "@contract/model"
import { useBridge } from "../../bridge/BridgeContext"
import { escapeForDisplay } from "../../lib/escape"
import { formatAge } from "../../lib/time"
import { selectConnector, selectConnectorNames, useConnectorsStore } from "../../state/connectorsStore"
import { ConfirmButton } from "../shell/ConfirmButton"
import { useNow } from "../shell/useNow"
import { AddConnectionForm } from "./AddConnectionForm"
import "../shell/controls.css"
import "./connections.css"
import { errorMessage } from "../../lib/errors"

const stateLabels: Record<ConnectorState, string> = {
  connecting: "Connecting",
  connected: "Connected",
  reconnecting: "Reconnecting",
  unauthorized: "Password refused",
  unreachable: "Unreachable",
}

/** The OpenCode servers Gatehouse supervises: how each connection stands, adding and removing one. */
export function ConnectionsPanel() {
  const names = useConnectorsStore(selectConnectorNames)
  const [adding, setAdding] = useState(false)
  return (
    <section className="connections" aria-labelledby="connections-title" data-testid="connections">
      <div className="connections-head">
        <h2 id="connections-title" className="connections-title">
          OpenCode servers
        </h2>
        {!adding && (
          <button type="button" className="btn" data-testid="connection-add-open" onClick={() => setAdding(true)}>
            Add server
          </button>
        )}
      </div>
      {adding && <AddConnectionForm onClose={() => setAdding(false)} />}
      {names.length === 0 ? (
        !adding && (
          <p className="muted" data-testid="connections-empty">
            Supervise a running <code>opencode serve</code>: its sessions appear below and its permission asks wait in
            the inbox.
          </p>
        )
      ) : (
        <ul className="connection-list">
          {names.map((name) => (
            <ConnectionRow key={name} name={name} />
          ))}
        </ul>
      )}
    </section>
  )
}

function ConnectionRow({ name }: { readonly name: string }) {
  const info = useConnectorsStore(selectConnector(name))
  const bridge = useBridge()
  const now = useNow(1000)
  const [problem, setProblem] = useState<string | null>(null)
  if (!info) return null
  const retry =
    info.state !== "connected" && info.retryAt !== null
      ? info.retryAt > now
        ? `retrying in ${formatAge(info.retryAt - now + 999)}`
        : "retrying now"
      : null
  return (
    <li className="connection" data-testid="connection" data-name={info.name} data-state={info.state}>
      <span className={`connection-state connection-${info.state}`} data-testid="connection-state">
        {stateLabels[info.state]}
      </span>
      <span className="connection-name">{escapeForDisplay(info.name)}</span>
      <span className="mono muted connection-url">{escapeForDisplay(info.url)}</span>
      {info.state === "connected" ? (
        <span className="muted" data-testid="connection-summary">
          {info.version !== null ? `OpenCode ${info.version} · ` : ""}
          {info.pending} waiting
        </span>
      ) : (
        <span className="muted" data-testid="connection-detail">
          {info.detail !== null ? escapeForDisplay(info.detail) : ""}
          {retry !== null ? ` (${retry})` : ""}
        </span>
      )}
      <span className="connection-actions">
        {info.origin === "config" ? (
          <span className="muted" title="Change it in config.jsonc">
            config.jsonc
          </span>
        ) : (
          <ConfirmButton
            label="Remove"
            question={`Stop supervising ${info.name}?`}
            confirmLabel="Remove"
            testId="connection-remove"
            onConfirm={() => {
              setProblem(null)
              bridge
                .invoke("connectors.remove", { name: info.name })
                .catch((error: unknown) => setProblem(errorMessage(error)))
            }}
          />
        )}
      </span>
      {problem !== null && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
    </li>
  )
}
