import type { PermissionRequestId } from "@contract/ids"
import {
  selectFailure,
  selectIsComposingFeedback,
  selectIsSelected,
  selectIsSending,
  useInboxStore,
  type InboxAsk,
} from "../../state/inboxStore"
import { selectProjectName, useProjectsStore } from "../../state/projectsStore"
import { selectSession, useSessionsStore } from "../../state/sessionsStore"
import { AskDetails } from "./AskDetails"
import { EscapedText } from "./EscapedText"
import { FeedbackBox } from "./FeedbackBox"
import { useArmed } from "./useArmed"
import { useInboxActions } from "./useInboxActions"
import { Age } from "../shell/Age"

/** What "Always" will save, exactly: the request's `save` patterns, for its project and action. */
export function AlwaysPatterns({
  ask,
  projectName,
}: {
  readonly ask: InboxAsk
  readonly projectName: string | undefined
}) {
  const save = ask.request.save ?? []
  if (save.length === 0)
    return (
      <p className="card-always" data-testid="always-patterns" data-empty="true">
        Always saves nothing for this ask: it acts as Once.
      </p>
    )
  return (
    <p className="card-always" data-testid="always-patterns">
      Always saves <EscapedText text={ask.request.action} /> for{" "}
      {save.map((pattern, index) => (
        <span key={index}>
          {index > 0 && ", "}
          <code className="pattern" data-testid="always-pattern">
            <EscapedText text={pattern} />
          </code>
        </span>
      ))}{" "}
      in project <EscapedText text={projectName ?? "?"} />
    </p>
  )
}

/**
 * One pending ask. Every button names this card's ask id, fixed when the card rendered: an answer
 * can only ever go to the ask the person is looking at, and a card whose ask ended is unmounted.
 */
export function AskCard({ ask }: { readonly ask: InboxAsk }) {
  const id: PermissionRequestId = ask.id
  const session = useSessionsStore(selectSession(ask.sessionID))
  const projectName = useProjectsStore(selectProjectName(session?.projectId))
  const selected = useInboxStore(selectIsSelected(id))
  const sending = useInboxStore(selectIsSending(id))
  const failure = useInboxStore(selectFailure(id))
  const composing = useInboxStore(selectIsComposingFeedback(id))
  const toggleSelected = useInboxStore((state) => state.toggleSelected)
  const openComposer = useInboxStore((state) => state.openComposer)
  const closeComposer = useInboxStore((state) => state.closeComposer)
  const setCursor = useInboxStore((state) => state.setCursor)
  const { cursor, armed } = useArmed(id)
  const actions = useInboxActions()
  const tool = ask.call?.tool ?? ask.request.action
  const agent = ask.agent ?? session?.agent ?? "?"
  return (
    <article
      className="card"
      data-testid="ask-card"
      data-id={id}
      data-action={ask.request.action}
      data-cursor={cursor}
      data-armed={armed}
      data-selected={selected}
      data-state={sending ? "sending" : failure ? "failed" : "pending"}
      aria-current={cursor ? "true" : undefined}
      aria-label={`Ask: ${tool}`}
      onMouseDown={() => setCursor(id)}
    >
      <header className="card-header">
        <input
          type="checkbox"
          className="card-select"
          aria-label="Select for one answer to all selected"
          data-testid="select"
          checked={selected}
          onChange={() => toggleSelected(id)}
        />
        <span className="card-tool" data-testid="card-tool">
          <EscapedText text={tool} />
        </span>
        {tool !== ask.request.action && (
          <span className="card-action" data-testid="card-action">
            <EscapedText text={ask.request.action} />
          </span>
        )}
        <span className="card-agent" title="Agent">
          <EscapedText text={agent} />
        </span>
        <span className="card-age" data-testid="card-age" title="Waiting for">
          <Age since={ask.askedAt} />
        </span>
      </header>
      <div className="card-body">
        <AskDetails ask={ask} />
      </div>
      <AlwaysPatterns ask={ask} projectName={projectName} />
      <div className="card-actions" role="group" aria-label="Answer">
        <button
          type="button"
          className="button button-primary"
          disabled={sending}
          onClick={() => void actions.reply(id, "once")}
        >
          Once <kbd>o</kbd>
        </button>
        <button type="button" className="button" disabled={sending} onClick={() => void actions.reply(id, "always")}>
          Always <kbd>a</kbd>
        </button>
        <button
          type="button"
          className="button button-danger"
          disabled={sending}
          onClick={() => void actions.reply(id, "reject")}
        >
          Reject <kbd>r</kbd>
        </button>
        <button
          type="button"
          className="button"
          disabled={sending}
          onClick={() => openComposer({ kind: "feedback", id })}
        >
          Reject with feedback <kbd>f</kbd>
        </button>
        {sending && <span className="card-sending">Sending…</span>}
      </div>
      {composing && !sending && (
        <FeedbackBox
          label="Tell the model why, and what to do instead"
          submitLabel="Reject with feedback"
          required
          testId="feedback"
          onSubmit={(message) => {
            closeComposer()
            void actions.reply(id, "reject", message)
          }}
          onCancel={closeComposer}
        />
      )}
      {failure && (
        <p className="card-failure" role="alert" data-testid="card-failure">
          {failure}
        </p>
      )}
    </article>
  )
}
