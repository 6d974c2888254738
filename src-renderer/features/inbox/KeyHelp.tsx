import { INBOX_KEYS } from "./keys"

/** The inbox's keys (`?`). */
export function KeyHelp({ onClose }: { readonly onClose: () => void }) {
  return (
    <aside className="key-help" data-testid="key-help" aria-label="Keyboard shortcuts">
      <header className="key-help-header">
        <h2>Keys</h2>
        <button type="button" className="button button-small" onClick={onClose}>
          Close <kbd>?</kbd>
        </button>
      </header>
      <dl>
        {INBOX_KEYS.map(([key, what]) => (
          <div key={key} className="key-help-row">
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <p className="key-help-note">
        Keys do nothing while you type in a text box. A card that just moved under the cursor takes a moment before keys
        can answer it.
      </p>
    </aside>
  )
}
