import { selectIsComposingSelection, selectSelected, useInboxStore } from "../../state/inboxStore"
import { FeedbackBox } from "./FeedbackBox"
import type { InboxActions } from "./useInboxActions"

/** Shown while asks are selected (`x`): one answer for all of them, each sent for its own id. */
export function BulkBar({ actions }: { readonly actions: InboxActions }) {
  const selected = useInboxStore(selectSelected)
  const composing = useInboxStore(selectIsComposingSelection)
  const openComposer = useInboxStore((state) => state.openComposer)
  const closeComposer = useInboxStore((state) => state.closeComposer)
  const clearSelection = useInboxStore((state) => state.clearSelection)
  if (selected.length === 0) return null
  const ids = [...selected]
  return (
    <div className="bulk-bar" data-testid="bulk-bar" role="region" aria-label="Selected asks">
      <div className="bulk-bar-line">
        <span className="bulk-count" data-testid="bulk-count">
          {selected.length} selected — keys answer all of them
        </span>
        <button type="button" className="button button-primary" onClick={() => void actions.replyMany(ids, "once")}>
          Once <kbd>o</kbd>
        </button>
        <button type="button" className="button" onClick={() => void actions.replyMany(ids, "always")}>
          Always <kbd>a</kbd>
        </button>
        <button type="button" className="button button-danger" onClick={() => void actions.replyMany(ids, "reject")}>
          Reject <kbd>r</kbd>
        </button>
        <button type="button" className="button" onClick={() => openComposer({ kind: "selection" })}>
          Reject with feedback <kbd>f</kbd>
        </button>
        <button type="button" className="button" onClick={clearSelection}>
          Clear <kbd>Esc</kbd>
        </button>
      </div>
      <p className="bulk-note">Always saves each ask&apos;s own patterns, as its card shows.</p>
      {composing && (
        <FeedbackBox
          label={`Feedback for the model, sent with the rejection of all ${selected.length} selected asks`}
          submitLabel={`Reject ${selected.length} with feedback`}
          required
          testId="bulk-feedback"
          onSubmit={(message) => {
            closeComposer()
            void actions.replyMany(ids, "reject", message)
          }}
          onCancel={closeComposer}
        />
      )}
    </div>
  )
}
