import { useEffect, useId, useRef, useState, type FormEvent } from "react"
import type { SavedApprovalId } from "@contract/ids"
import { useBridge } from "../../bridge/BridgeContext"
import { broadPatternNote, resourceProblem } from "./validation"
import { errorMessage } from "../../lib/errors"

/** Edits an approval's resource pattern in place; problems are shown under the field as you type. */
export function EditPatternForm({
  id,
  initial,
  onDone,
}: {
  readonly id: SavedApprovalId
  readonly initial: string
  readonly onDone: () => void
}) {
  const bridge = useBridge()
  const [value, setValue] = useState(initial)
  const [serverError, setServerError] = useState<string | null>(null)
  const [sending, setSending] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const errorId = useId()
  useEffect(() => input.current?.select(), [])

  const problem = serverError ?? resourceProblem(value)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (value === initial) return onDone()
    if (resourceProblem(value)) return
    setSending(true)
    bridge.invoke("approvals.update", { id, resource: value }).then(
      () => onDone(),
      (error: unknown) => {
        setSending(false)
        setServerError(errorMessage(error))
      },
    )
  }

  return (
    <form
      className="approval-edit"
      data-testid="approval-edit-form"
      aria-label="Edit the resource pattern"
      noValidate
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.stopPropagation()
          onDone()
        }
      }}
    >
      <input
        ref={input}
        className="mono"
        data-testid="approval-edit-input"
        aria-label="Resource pattern"
        value={value}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? errorId : undefined}
        onChange={(event) => {
          setValue(event.target.value)
          setServerError(null)
        }}
      />
      <button
        type="submit"
        className="btn btn-primary"
        data-testid="approval-edit-save"
        disabled={sending || Boolean(problem)}
      >
        Save
      </button>
      <button type="button" className="btn" data-testid="approval-edit-cancel" onClick={onDone}>
        Cancel
      </button>
      {problem && (
        <p className="field-error" id={errorId} role="alert" data-testid="approval-edit-error">
          {problem}
        </p>
      )}
      {!problem && broadPatternNote(value) && (
        <p className="field-note" data-testid="approval-edit-note">
          {broadPatternNote(value)}
        </p>
      )}
    </form>
  )
}
