import type { ReactNode } from "react"

/** What a view shows while it has nothing: what will appear here, and how it gets here. */
export function EmptyState({ title, children }: { readonly title: string; readonly children: ReactNode }) {
  return (
    <div className="empty-state" data-testid="empty-state">
      <p className="empty-state-title">{title}</p>
      <p className="empty-state-body">{children}</p>
    </div>
  )
}
