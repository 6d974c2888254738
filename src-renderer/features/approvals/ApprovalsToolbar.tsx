import { useState } from "react"
import type { ProjectId } from "@contract/ids"
import { useBridge } from "../../bridge/BridgeContext"
import type { ApprovalFilter } from "../../state/approvalsStore"
import { selectIndicator, useConnectionStore } from "../../state/connectionStore"
import { useProjectsStore } from "../../state/projectsStore"
import { downloadText, exportFileName } from "../shell/download"
import { errorMessage } from "../../lib/errors"

/** Filter (text, project, shadowed only), add, and export to JSON. */
export function ApprovalsToolbar({
  filter,
  onFilter,
  adding,
  onAdd,
}: {
  readonly filter: ApprovalFilter
  readonly onFilter: (filter: ApprovalFilter) => void
  readonly adding: boolean
  readonly onAdd: () => void
}) {
  const bridge = useBridge()
  const live = useConnectionStore(selectIndicator) === "live"
  const projectIds = useProjectsStore((state) => state.ids)
  const projects = useProjectsStore((state) => state.byId)
  const [exportState, setExportState] = useState<{ readonly busy: boolean; readonly error: string | null }>({
    busy: false,
    error: null,
  })

  const exportJson = () => {
    setExportState({ busy: true, error: null })
    bridge.invoke("approvals.export", filter.projectID === null ? {} : { projectID: filter.projectID }).then(
      (json) => {
        downloadText(exportFileName("approvals", "json"), json, "application/json")
        setExportState({ busy: false, error: null })
      },
      (error: unknown) => setExportState({ busy: false, error: `Export failed: ${errorMessage(error)}` }),
    )
  }

  return (
    <>
      <div className="toolbar" role="search" aria-label="Filter approvals">
        <label className="field">
          Filter
          <input
            type="search"
            data-testid="approvals-filter"
            placeholder="action, pattern or project"
            value={filter.text}
            onChange={(event) => onFilter({ ...filter, text: event.target.value })}
          />
        </label>
        <label className="field">
          Project
          <select
            data-testid="approvals-project-filter"
            value={filter.projectID ?? ""}
            onChange={(event) =>
              onFilter({ ...filter, projectID: event.target.value === "" ? null : (event.target.value as ProjectId) })
            }
          >
            <option value="">All projects</option>
            {projectIds.map((id) => (
              <option key={id} value={id}>
                {projects[id]?.name ?? id}
              </option>
            ))}
          </select>
        </label>
        <label className="field field-check">
          <input
            type="checkbox"
            data-testid="approvals-shadowed-filter"
            checked={filter.shadowedOnly}
            onChange={(event) => onFilter({ ...filter, shadowedOnly: event.target.checked })}
          />
          Only ineffective ones
        </label>
        <span className="toolbar-spacer" />
        <button type="button" className="btn btn-primary" data-testid="approvals-add" disabled={adding} onClick={onAdd}>
          Add approval
        </button>
        <button
          type="button"
          className="btn"
          data-testid="approvals-export"
          disabled={!live || exportState.busy}
          onClick={exportJson}
        >
          {exportState.busy ? "Exporting…" : "Export JSON"}
        </button>
      </div>
      {exportState.error && (
        <p className="alert" role="alert" data-testid="approvals-export-error">
          {exportState.error}
        </p>
      )}
    </>
  )
}
