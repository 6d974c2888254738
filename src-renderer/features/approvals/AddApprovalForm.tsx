import { useId, useState, type FormEvent } from "react"
import type { ProjectId } from "@contract/ids"
import { useBridge } from "../../bridge/BridgeContext"
import { selectProjectIds, useProjectsStore } from "../../state/projectsStore"
import { actionProblem, broadPatternNote, resourceProblem } from "./validation"
import { errorMessage } from "../../lib/errors"

/** The actions of the built-in tools, offered as suggestions (any action name is accepted). */
const knownActions = [
  "bash",
  "edit",
  "read",
  "glob",
  "grep",
  "webfetch",
  "websearch",
  "skill",
  "todowrite",
  "question",
  "external_directory",
]

/** Saves an approval by hand: a project, an action and a resource pattern, checked as you type. */
export function AddApprovalForm({ onClose }: { readonly onClose: () => void }) {
  const bridge = useBridge()
  const projectIds = useProjectsStore(selectProjectIds)
  const projects = useProjectsStore((state) => state.byId)
  const [projectID, setProjectID] = useState<ProjectId | "">(projectIds[0] ?? "")
  const [action, setAction] = useState("")
  const [resource, setResource] = useState("")
  const [touched, setTouched] = useState(false)
  const [sending, setSending] = useState(false)
  const [serverError, setServerError] = useState<{
    readonly field: "action" | "resource" | "form"
    readonly message: string
  } | null>(null)
  const ids = useId()

  const actionError = touched || action !== "" ? actionProblem(action) : undefined
  const resourceError = touched || resource !== "" ? resourceProblem(resource) : undefined
  const shownAction = serverError?.field === "action" ? serverError.message : actionError
  const shownResource = serverError?.field === "resource" ? serverError.message : resourceError

  const submit = (event: FormEvent) => {
    event.preventDefault()
    setTouched(true)
    if (projectID === "" || actionProblem(action) || resourceProblem(resource)) return
    setSending(true)
    setServerError(null)
    bridge.invoke("approvals.add", { projectID, action, resource }).then(
      () => {
        setSending(false)
        onClose()
      },
      (error: unknown) => {
        setSending(false)
        const tagged = error as { _tag?: string; field?: "action" | "resource" }
        setServerError({
          field:
            tagged._tag === "Approvals.InvalidPatternError" && tagged.field
              ? tagged.field
              : tagged._tag === "SavedApprovals.ConflictError"
                ? "resource"
                : "form",
          message: errorMessage(error),
        })
      },
    )
  }

  if (projectIds.length === 0)
    return (
      <div className="approval-form" data-testid="approval-add-form">
        <p className="muted">
          There is no project yet. A project appears when an agent starts a session in a directory; then you can save
          approvals for it here.
        </p>
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
    )

  return (
    <form
      className="approval-form"
      data-testid="approval-add-form"
      aria-label="Add an approval"
      noValidate
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === "Escape") onClose()
      }}
    >
      <label className="field">
        Project
        <select
          data-testid="approval-add-project"
          value={projectID}
          onChange={(event) => setProjectID(event.target.value as ProjectId)}
        >
          {projectIds.map((id) => (
            <option key={id} value={id}>
              {projects[id]?.name ?? id}
            </option>
          ))}
        </select>
      </label>
      <div className="field">
        <label htmlFor={`${ids}-action`}>Action</label>
        <input
          id={`${ids}-action`}
          data-testid="approval-add-action"
          list={`${ids}-actions`}
          value={action}
          autoComplete="off"
          aria-invalid={shownAction ? true : undefined}
          aria-describedby={shownAction ? `${ids}-action-error` : undefined}
          onChange={(event) => {
            setAction(event.target.value)
            if (serverError?.field !== "resource") setServerError(null)
          }}
        />
        <datalist id={`${ids}-actions`}>
          {knownActions.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
        {shownAction && (
          <p className="field-error" id={`${ids}-action-error`} data-testid="approval-add-action-error">
            {shownAction}
          </p>
        )}
      </div>
      <div className="field field-wide">
        <label htmlFor={`${ids}-resource`}>Resource pattern</label>
        <input
          id={`${ids}-resource`}
          className="mono"
          data-testid="approval-add-resource"
          value={resource}
          autoComplete="off"
          spellCheck={false}
          placeholder="src/** or git status *"
          aria-invalid={shownResource ? true : undefined}
          aria-describedby={shownResource ? `${ids}-resource-error` : undefined}
          onChange={(event) => {
            setResource(event.target.value)
            setServerError(null)
          }}
        />
        {shownResource && (
          <p className="field-error" id={`${ids}-resource-error`} data-testid="approval-add-resource-error">
            {shownResource}
          </p>
        )}
        {!shownResource && broadPatternNote(resource) && (
          <p className="field-note" data-testid="approval-add-resource-note">
            {broadPatternNote(resource)}
          </p>
        )}
      </div>
      <div className="approval-form-actions">
        <button type="submit" className="btn btn-primary" data-testid="approval-add-save" disabled={sending}>
          {sending ? "Saving…" : "Save approval"}
        </button>
        <button type="button" className="btn" data-testid="approval-add-cancel" onClick={onClose}>
          Cancel
        </button>
      </div>
      {serverError?.field === "form" && (
        <p className="field-error" role="alert" data-testid="approval-add-error">
          {serverError.message}
        </p>
      )}
    </form>
  )
}
