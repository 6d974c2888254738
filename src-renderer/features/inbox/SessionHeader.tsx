import { useShallow } from "zustand/react/shallow"
import { selectIsComposingSession, useInboxStore, type InboxGroup, type InboxState } from "../../state/inboxStore"
import { selectProjectName, useProjectsStore } from "../../state/projectsStore"
import { selectSession, useSessionsStore } from "../../state/sessionsStore"
import { EscapedText } from "./EscapedText"
import { FeedbackBox } from "./FeedbackBox"
import { useInboxActions } from "./useInboxActions"
import { Age } from "../shell/Age"

/** The pending asks (not questions) of a session, oldest first. */
const askIdsOf = (group: InboxGroup) => (state: InboxState) =>
  group.itemIds.filter((id) => state.byId[id]?.kind === "ask")

/** A session's header in the inbox: who is blocked, for how long, and "reject all" for it. */
export function SessionHeader({ group }: { readonly group: InboxGroup }) {
  const session = useSessionsStore(selectSession(group.sessionID))
  const projectName = useProjectsStore(selectProjectName(session?.projectId))
  const composing = useInboxStore(selectIsComposingSession(group.sessionID))
  const askIds = useInboxStore(useShallow(askIdsOf(group)))
  const openComposer = useInboxStore((state) => state.openComposer)
  const closeComposer = useInboxStore((state) => state.closeComposer)
  const actions = useInboxActions()
  const count = group.itemIds.length
  return (
    <div className="inbox-session" data-testid="session-group" data-session={group.sessionID}>
      <div className="inbox-session-line">
        <h2 className="inbox-session-title">
          <EscapedText text={session?.title || "Session"} />
        </h2>
        <span className="inbox-session-meta">
          <EscapedText text={projectName ?? "?"} /> · <EscapedText text={session?.agent ?? "?"} /> ·{" "}
          <EscapedText text={session?.source ?? "?"} />
        </span>
        <span className="inbox-session-blocked" data-testid="inbox-session-blocked">
          {count} waiting · blocked <Age since={group.blockedSince} />
        </span>
        <button
          type="button"
          className="button button-danger button-small"
          data-testid="reject-session"
          disabled={askIds.length === 0}
          onClick={() => openComposer({ kind: "session", sessionID: group.sessionID })}
        >
          Reject all <kbd>R</kbd>
        </button>
      </div>
      {composing && (
        <FeedbackBox
          label={`Reject all ${askIds.length} pending asks of this session. Feedback for the model (optional):`}
          submitLabel={`Reject ${askIds.length}`}
          required={false}
          testId="session-feedback"
          onSubmit={(message) => void actions.rejectSession(group.sessionID, askIds, message)}
          onCancel={closeComposer}
        />
      )}
    </div>
  )
}
