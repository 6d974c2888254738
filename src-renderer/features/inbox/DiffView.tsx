import { useState } from "react"
import type { DiffLine } from "./diffLines"
import { EscapedText } from "./EscapedText"

/** Lines shown before "Show all": a diff stays readable inside its card. */
export const DIFF_PREVIEW_LINES = 200

const marks: Record<DiffLine["kind"], string> = { add: "+", del: "-", ctx: " ", meta: "" }

/** A diff rendered as `+`/`-` lines (every line escaped); long ones say how much more there is. */
export function DiffView({ lines, label }: { readonly lines: ReadonlyArray<DiffLine>; readonly label: string }) {
  const [all, setAll] = useState(false)
  const shown = all ? lines : lines.slice(0, DIFF_PREVIEW_LINES)
  const added = lines.filter((line) => line.kind === "add").length
  const removed = lines.filter((line) => line.kind === "del").length
  return (
    <figure className="diff" data-testid="diff">
      <figcaption className="diff-caption">
        <EscapedText text={label} /> <span className="diff-added">+{added}</span>{" "}
        <span className="diff-removed">-{removed}</span>
      </figcaption>
      <pre className="diff-body">
        {shown.map((line, index) => (
          <span key={index} className={`diff-line diff-${line.kind}`} data-kind={line.kind}>
            <span className="diff-mark" aria-hidden="true">
              {marks[line.kind]}
            </span>
            <EscapedText text={line.text} multiline />
            {"\n"}
          </span>
        ))}
      </pre>
      {lines.length > shown.length && (
        <button type="button" className="link-button" data-testid="diff-show-all" onClick={() => setAll(true)}>
          Show all {lines.length} lines ({lines.length - shown.length} more)
        </button>
      )}
    </figure>
  )
}
