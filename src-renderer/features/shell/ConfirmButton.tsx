import { useEffect, useRef, useState } from "react"
import "./controls.css"

/**
 * A destructive action that asks first, in place: the button turns into "<question> Yes / Cancel".
 * No modal (and no `window.confirm`, which blocks the event stream): Escape or Cancel backs out,
 * and focus moves to the choice so the keyboard flow is two presses.
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  disabled,
  testId,
}: {
  readonly label: string
  readonly question: string
  readonly confirmLabel: string
  readonly onConfirm: () => void
  readonly disabled?: boolean
  readonly testId: string
}) {
  const [asking, setAsking] = useState(false)
  const cancel = useRef<HTMLButtonElement>(null)
  const opener = useRef<HTMLButtonElement>(null)
  const wasAsking = useRef(false)
  useEffect(() => {
    if (asking) cancel.current?.focus()
    else if (wasAsking.current) opener.current?.focus()
    wasAsking.current = asking
  }, [asking])
  if (!asking)
    return (
      <button
        ref={opener}
        type="button"
        className="btn btn-danger"
        data-testid={testId}
        disabled={disabled}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    )
  return (
    <span
      className="confirm"
      role="group"
      aria-label={question}
      data-testid={`${testId}-confirm`}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.stopPropagation()
          setAsking(false)
        }
      }}
    >
      <span className="confirm-question">{question}</span>
      <button
        type="button"
        className="btn btn-danger"
        data-testid={`${testId}-yes`}
        onClick={() => {
          setAsking(false)
          onConfirm()
        }}
      >
        {confirmLabel}
      </button>
      <button
        ref={cancel}
        type="button"
        className="btn"
        data-testid={`${testId}-cancel`}
        onClick={() => setAsking(false)}
      >
        Cancel
      </button>
    </span>
  )
}
