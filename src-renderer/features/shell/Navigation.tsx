import type { KeyboardEvent } from "react"
import { selectView, useNavigationStore, Views, type View } from "../../state/navigationStore"

export const viewLabels: Record<View, string> = {
  inbox: "Inbox",
  sessions: "Sessions",
  approvals: "Approvals",
  outputs: "Outputs",
}

/** The four views. Arrow keys move between entries; Tab leaves the list. */
export function Navigation() {
  const current = useNavigationStore(selectView)
  const navigate = useNavigationStore((state) => state.navigate)

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const step =
      event.key === "ArrowDown" || event.key === "ArrowRight"
        ? 1
        : event.key === "ArrowUp" || event.key === "ArrowLeft"
          ? -1
          : 0
    if (step === 0) return
    const buttons = Array.from(event.currentTarget.querySelectorAll("button"))
    const index = buttons.indexOf(document.activeElement as HTMLButtonElement)
    if (index < 0) return
    event.preventDefault()
    buttons[(index + step + buttons.length) % buttons.length]?.focus()
  }

  return (
    <nav className="nav" aria-label="Views">
      <ul onKeyDown={onKeyDown}>
        {Views.map((view) => (
          <li key={view}>
            <button
              type="button"
              className="nav-item"
              data-testid={`nav-${view}`}
              aria-current={view === current ? "page" : undefined}
              onClick={() => navigate(view)}
            >
              {viewLabels[view]}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  )
}
