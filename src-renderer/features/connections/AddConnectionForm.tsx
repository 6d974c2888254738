import { useId, useState, type FormEvent } from "react"
import { useBridge } from "../../bridge/BridgeContext"
import { errorMessage } from "../../lib/errors"

type Field = "url" | "name" | "username" | "password" | "form"

/** The server's address, checked as the server will check it (the server decides). */
export function urlProblem(text: string): string | undefined {
  if (text.trim() === "") return "Enter the server's address, e.g. http://127.0.0.1:4096"
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    return "Enter the server's address, e.g. http://127.0.0.1:4096"
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Use an http:// or https:// address"
  if (url.username !== "" || url.password !== "")
    return "Leave the user name and password out of the address; use their own fields"
  return undefined
}

/** Adds an OpenCode server: its address, an optional name, and its password when it has one. */
export function AddConnectionForm({ onClose }: { readonly onClose: () => void }) {
  const bridge = useBridge()
  const ids = useId()
  const [url, setUrl] = useState("")
  const [name, setName] = useState("")
  const [username, setUsername] = useState("")
  const [password, setPassword] = useState("")
  const [touched, setTouched] = useState(false)
  const [sending, setSending] = useState(false)
  const [serverError, setServerError] = useState<{ readonly field: Field; readonly message: string } | null>(null)

  const shownUrl = serverError?.field === "url" ? serverError.message : touched ? urlProblem(url) : undefined

  const submit = (event: FormEvent) => {
    event.preventDefault()
    setTouched(true)
    if (urlProblem(url)) return
    setSending(true)
    setServerError(null)
    bridge
      .invoke("connectors.add", {
        url: url.trim(),
        ...(name.trim() !== "" ? { name: name.trim() } : {}),
        ...(username.trim() !== "" ? { username: username.trim() } : {}),
        ...(password !== "" ? { password } : {}),
      })
      .then(
        () => {
          setSending(false)
          onClose()
        },
        (error: unknown) => {
          setSending(false)
          const tagged = error as { _tag?: string; field?: Field }
          setServerError({
            field:
              tagged._tag === "Connectors.InvalidError" && tagged.field
                ? tagged.field
                : tagged._tag === "Connectors.ConflictError"
                  ? "name"
                  : "form",
            message: errorMessage(error),
          })
        },
      )
  }

  const errorFor = (field: Field) =>
    serverError?.field === field ? (
      <p className="field-error" id={`${ids}-${field}-error`} data-testid={`connection-add-${field}-error`}>
        {serverError.message}
      </p>
    ) : null

  return (
    <form
      className="connection-form"
      data-testid="connection-add-form"
      aria-label="Add an OpenCode server"
      noValidate
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === "Escape") onClose()
      }}
    >
      <div className="field field-wide">
        <label htmlFor={`${ids}-url`}>Address</label>
        <input
          id={`${ids}-url`}
          className="mono"
          data-testid="connection-add-url"
          value={url}
          autoComplete="off"
          spellCheck={false}
          placeholder="http://127.0.0.1:4096"
          aria-invalid={shownUrl ? true : undefined}
          aria-describedby={shownUrl ? `${ids}-url-error` : undefined}
          onChange={(event) => {
            setUrl(event.target.value)
            if (serverError?.field === "url") setServerError(null)
          }}
        />
        {shownUrl && (
          <p className="field-error" id={`${ids}-url-error`} data-testid="connection-add-url-error">
            {shownUrl}
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor={`${ids}-name`}>Name (optional)</label>
        <input
          id={`${ids}-name`}
          data-testid="connection-add-name"
          value={name}
          autoComplete="off"
          placeholder="host-port"
          aria-invalid={serverError?.field === "name" ? true : undefined}
          onChange={(event) => {
            setName(event.target.value)
            if (serverError?.field === "name") setServerError(null)
          }}
        />
        {errorFor("name")}
      </div>
      <div className="field">
        <label htmlFor={`${ids}-username`}>User (optional)</label>
        <input
          id={`${ids}-username`}
          data-testid="connection-add-username"
          value={username}
          autoComplete="off"
          placeholder="opencode"
          onChange={(event) => setUsername(event.target.value)}
        />
        {errorFor("username")}
      </div>
      <div className="field">
        <label htmlFor={`${ids}-password`}>Password (optional)</label>
        <input
          id={`${ids}-password`}
          type="password"
          data-testid="connection-add-password"
          value={password}
          autoComplete="off"
          placeholder="OPENCODE_SERVER_PASSWORD"
          onChange={(event) => {
            setPassword(event.target.value)
            if (serverError?.field === "password") setServerError(null)
          }}
        />
        {errorFor("password")}
      </div>
      <div className="connection-form-actions">
        <button type="submit" className="btn btn-primary" data-testid="connection-add-save" disabled={sending}>
          {sending ? "Adding…" : "Add server"}
        </button>
        <button type="button" className="btn" data-testid="connection-add-cancel" onClick={onClose}>
          Cancel
        </button>
      </div>
      {serverError?.field === "form" && (
        <p className="field-error" role="alert" data-testid="connection-add-error">
          {serverError.message}
        </p>
      )}
    </form>
  )
}
