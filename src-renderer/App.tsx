import { useEffect, useRef, type ComponentType } from "react"
import { ApprovalsView } from "./features/approvals/ApprovalsView"
import { InboxView } from "./features/inbox/InboxView"
import { InboxAnnouncer } from "./features/inbox/InboxAnnouncer"
import { OutputsView } from "./features/outputs/OutputsView"
import { SessionsView } from "./features/sessions/SessionsView"
import { ConnectionIndicator, ConnectionProblem } from "./features/shell/ConnectionIndicator"
import { Navigation } from "./features/shell/Navigation"
import { selectView, useNavigationStore, type View } from "./state/navigationStore"

const views: Record<View, ComponentType> = {
  inbox: InboxView,
  sessions: SessionsView,
  approvals: ApprovalsView,
  outputs: OutputsView,
}

/** The shell every view hangs in: header with the connection state, navigation, the current view. */
export function App() {
  const view = useNavigationStore(selectView)
  const Current = views[view]
  const main = useRef<HTMLElement>(null)
  const previous = useRef(view)
  // After a switch (not on first load), focus goes to the new view's heading, so keyboard and
  // screen-reader users land in the content they asked for.
  useEffect(() => {
    if (previous.current === view) return
    previous.current = view
    main.current?.querySelector<HTMLElement>("h1")?.focus()
  }, [view])
  return (
    <div className="shell">
      <header className="shell-header">
        <span className="brand">Gatehouse</span>
        <ConnectionIndicator />
        <InboxAnnouncer />
      </header>
      <Navigation />
      <main className="shell-main" ref={main}>
        <ConnectionProblem />
        <Current />
      </main>
    </div>
  )
}
