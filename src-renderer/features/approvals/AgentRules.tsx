import type { AgentInfo, PermissionRule } from "@contract/model"
import { escapeForDisplay } from "../../lib/escape"

/**
 * The configured rules of every agent, read-only (they live in config.jsonc). The last matching
 * rule decides, and a configured deny is final: no saved approval lifts it.
 */
export function AgentRules({ agents }: { readonly agents: ReadonlyArray<AgentInfo> | null }) {
  const runnable = agents?.filter((agent) => !agent.hidden) ?? []
  const helpers = agents?.filter((agent) => agent.hidden) ?? []
  return (
    <aside className="agent-rules" aria-labelledby="agent-rules-title" data-testid="agent-rules">
      <h2 id="agent-rules-title" className="agent-rules-title">
        Configured agent rules
      </h2>
      <p className="muted agent-rules-note">
        Read-only: change them in config.jsonc and restart Gatehouse. The last matching rule decides; a configured deny
        wins over every saved approval.
      </p>
      {agents === null ? (
        <p className="muted">Loading…</p>
      ) : (
        <>
          {runnable.map((agent) => (
            <AgentSection key={agent.name} agent={agent} open={agent.name === "build"} />
          ))}
          {helpers.length > 0 && (
            <details className="agent-helpers">
              <summary>Helpers that never run tools ({helpers.map((agent) => agent.name).join(", ")})</summary>
              {helpers.map((agent) => (
                <AgentSection key={agent.name} agent={agent} open={false} />
              ))}
            </details>
          )}
        </>
      )}
    </aside>
  )
}

function AgentSection({ agent, open }: { readonly agent: AgentInfo; readonly open: boolean }) {
  return (
    <details className="agent" open={open} data-testid="agent" data-agent={agent.name}>
      <summary>
        <span className="agent-name">{escapeForDisplay(agent.name)}</span>{" "}
        <span className="muted">
          {agent.mode} · {agent.rules.length} rule{agent.rules.length === 1 ? "" : "s"}
        </span>
      </summary>
      {agent.description && <p className="muted agent-description">{escapeForDisplay(agent.description)}</p>}
      <ol className="agent-rule-list">
        {agent.rules.map((rule, index) => (
          <RuleItem key={index} rule={rule} />
        ))}
      </ol>
    </details>
  )
}

function RuleItem({ rule }: { readonly rule: PermissionRule }) {
  return (
    <li className={`agent-rule agent-rule-${rule.effect}`} data-testid="agent-rule">
      <code className="mono">
        {escapeForDisplay(rule.action)} {escapeForDisplay(rule.resource)}
      </code>{" "}
      <span
        className={`badge ${rule.effect === "deny" ? "badge-danger" : rule.effect === "allow" ? "badge-ok" : "badge-warning"}`}
      >
        {rule.effect}
      </span>
    </li>
  )
}
