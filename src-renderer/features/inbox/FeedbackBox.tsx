import { useId, useState, type KeyboardEvent } from "react"

/**
 * A text box for feedback the model will read. Enter sends (Shift+Enter is a new line), Escape
 * cancels. With `required`, an empty box cannot be sent.
 */
export function FeedbackBox({
  label,
  submitLabel,
  required,
  onSubmit,
  onCancel,
  testId,
}: {
  readonly label: string
  readonly submitLabel: string
  readonly required: boolean
  readonly onSubmit: (message: string) => void
  readonly onCancel: () => void
  readonly testId: string
}) {
  const id = useId()
  const [message, setMessage] = useState("")
  const blank = message.trim() === ""
  const submit = () => {
    if (required && blank) return
    onSubmit(message)
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Escape") {
      event.preventDefault()
      event.stopPropagation()
      onCancel()
    } else if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      submit()
    }
  }
  return (
    <form
      className="feedback"
      data-testid={testId}
      onSubmit={(event) => {
        event.preventDefault()
        submit()
      }}
    >
      <label htmlFor={id} className="feedback-label">
        {label}
      </label>
      <textarea
        id={id}
        className="feedback-input"
        rows={2}
        autoFocus
        value={message}
        maxLength={20_000}
        onChange={(event) => setMessage(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="feedback-actions">
        <button type="submit" className="button button-danger" disabled={required && blank}>
          {submitLabel}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <span className="feedback-hint">Enter sends · Shift+Enter new line · Esc cancels</span>
      </div>
    </form>
  )
}
