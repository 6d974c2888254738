import type { ReactNode } from "react"

/** The frame of one top-level view: a labelled region whose heading takes focus on navigation. */
export function ViewFrame({
  id,
  title,
  children,
}: {
  readonly id: string
  readonly title: string
  readonly children: ReactNode
}) {
  return (
    <section className="view" aria-labelledby={`${id}-title`} data-testid={`view-${id}`}>
      <h1 id={`${id}-title`} className="view-title" tabIndex={-1}>
        {title}
      </h1>
      {children}
    </section>
  )
}
