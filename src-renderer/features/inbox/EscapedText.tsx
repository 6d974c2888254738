import { useMemo, useState } from "react"
import { clipMiddle, escapeSegments } from "../../lib/escape"

/**
 * Agent-controlled text, with every control, ANSI or bidi character shown as a marked escape
 * (`\x1b`, `\u202e`) instead of being rendered. The only way inbox cards put such text on screen.
 */
export function EscapedText({ text, multiline = false }: { readonly text: string; readonly multiline?: boolean }) {
  const segments = useMemo(() => escapeSegments(text, { multiline }), [text, multiline])
  return (
    <>
      {segments.map((segment, index) =>
        segment.kind === "text" ? (
          segment.value
        ) : (
          <span key={index} className="escaped" data-testid="escaped" title="A hidden character, shown escaped">
            {segment.value}
          </span>
        ),
      )}
    </>
  )
}

/** Collapsed limits: long enough for ordinary commands, short enough to keep a card scannable. */
export const LONG_TEXT_LIMITS = { headChars: 600, tailChars: 240, maxLines: 12 }

const count = new Intl.NumberFormat("en")

/**
 * A block of agent text (a command, a URL) that may be long. Collapsed, it shows its head AND its
 * tail around a button that says how much is hidden, so the end of a command is never out of sight
 * (RELIABILITY §5 item 22); "Show all" shows it whole.
 */
export function LongText({ text, className }: { readonly text: string; readonly className?: string }) {
  const [expanded, setExpanded] = useState(false)
  const clipped = useMemo(() => clipMiddle(text, LONG_TEXT_LIMITS), [text])
  const clippable = clipped.hiddenChars > 0
  const classes = ["long-text", className].filter(Boolean).join(" ")
  if (!clippable || expanded)
    return (
      <div className={classes} data-testid="long-text" data-state={clippable ? "expanded" : "whole"}>
        <pre className="long-text-body">
          <EscapedText text={text} multiline />
        </pre>
        {clippable && (
          <button
            type="button"
            className="link-button"
            data-testid="long-text-toggle"
            onClick={() => setExpanded(false)}
          >
            Show less
          </button>
        )}
      </div>
    )
  const hiddenLines = clipped.hiddenLines > 0 ? `, ${count.format(clipped.hiddenLines)} line breaks` : ""
  return (
    <div className={classes} data-testid="long-text" data-state="clipped">
      <pre className="long-text-body">
        <EscapedText text={clipped.head} multiline />
        <button
          type="button"
          className="long-text-gap"
          data-testid="long-text-toggle"
          aria-label={`Show all: ${count.format(clipped.hiddenChars)} characters hidden`}
          onClick={() => setExpanded(true)}
        >
          {`⋯ ${count.format(clipped.hiddenChars)} characters hidden${hiddenLines} — Show all ⋯`}
        </button>
        <EscapedText text={clipped.tail} multiline />
      </pre>
    </div>
  )
}
