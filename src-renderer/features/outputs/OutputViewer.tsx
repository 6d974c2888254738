import { useEffect, useRef, useState, type FormEvent } from "react"
import type { ToolOutputId } from "@contract/ids"
import type { OutputLine } from "@contract/model"
import { escapeForDisplay } from "../../lib/escape"
import { formatBytes, formatCount, formatDateTime } from "../../lib/format"
import {
  matchSummary,
  PAGE_LINES,
  pageOffsetOf,
  selectCurrentMatchLine,
  selectSearch,
  selectViewerError,
  selectViewerLoading,
  selectViewerOffset,
  selectViewerPage,
  useOutputViewerStore,
} from "../../state/outputViewerStore"
import { retentionLabel, retentionOf, selectOutput, selectRemoval, useOutputsStore } from "../../state/outputsStore"
import { ConfirmButton } from "../shell/ConfirmButton"
import { useNow } from "../shell/useNow"
import { SessionCell, useDeleteOutput } from "./OutputsTable"
import { useOutputViewer } from "./useOutputViewer"

/** One managed output, a page at a time, with search (next and previous match) and delete. */
export function OutputViewer({ id }: { readonly id: ToolOutputId }) {
  useOutputViewer()
  const output = useOutputsStore(selectOutput(id))
  const removal = useOutputsStore(selectRemoval(id))
  const close = useOutputViewerStore((state) => state.close)
  const loading = useOutputViewerStore(selectViewerLoading)
  const error = useOutputViewerStore(selectViewerError)
  const offset = useOutputViewerStore(selectViewerOffset)
  const { remove, busy, error: deleteError } = useDeleteOutput(id)
  const now = useNow(60_000)
  const state = error ? "error" : loading ? "loading" : "ready"

  return (
    <div
      className="output-viewer"
      data-testid="output-viewer"
      data-output-id={id}
      data-state={state}
      data-offset={offset}
    >
      <div className="output-viewer-bar">
        <button type="button" className="btn" data-testid="output-back" onClick={close}>
          ← All outputs
        </button>
        <h2 className="output-viewer-title mono">{id}</h2>
        {!removal && output && (
          <ConfirmButton
            label="Delete"
            question="Delete this output now?"
            confirmLabel="Delete"
            testId="output-viewer-delete"
            disabled={busy}
            onConfirm={remove}
          />
        )}
      </div>
      {deleteError && (
        <p className="alert" role="alert">
          {deleteError}
        </p>
      )}
      {output && (
        <dl className="output-facts">
          <dt>Session</dt>
          <dd>
            <SessionCell sessionID={output.sessionId} />
          </dd>
          <dt>Tool</dt>
          <dd className="mono">{output.tool === null ? "—" : escapeForDisplay(output.tool)}</dd>
          <dt>Size</dt>
          <dd>
            {formatBytes(output.bytes)}, {formatCount(output.lines)} lines
          </dd>
          <dt>Created</dt>
          <dd>{formatDateTime(output.createdAt)}</dd>
          <dt>Retention</dt>
          <dd data-testid="output-viewer-retention">{retentionLabel(retentionOf(output, removal, now))}</dd>
        </dl>
      )}
      {removal ? (
        <p className="alert" role="status" data-testid="output-viewer-removed">
          This output was {removal === "deleted" ? "deleted" : "removed by the 7-day retention"}; its file is gone.
        </p>
      ) : (
        <>
          <SearchBar />
          <Pager totalLines={output?.lines} />
          {error ? (
            <p className="alert" role="alert" data-testid="output-viewer-error">
              Cannot read this output: {error}
            </p>
          ) : (
            <Lines />
          )}
        </>
      )}
    </div>
  )
}

function SearchBar() {
  const search = useOutputViewerStore(selectSearch)
  const startSearch = useOutputViewerStore((state) => state.startSearch)
  const next = useOutputViewerStore((state) => state.next)
  const previous = useOutputViewerStore((state) => state.previous)
  const [text, setText] = useState(search.query)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (text === search.query && text !== "") next()
    else startSearch(text)
  }
  const summary = matchSummary(search)
  return (
    <form className="output-search" role="search" aria-label="Search this output" onSubmit={submit}>
      <label className="field">
        Search
        <input
          type="search"
          data-testid="output-search"
          value={text}
          spellCheck={false}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && event.shiftKey) {
              event.preventDefault()
              previous()
            }
          }}
        />
      </label>
      <button type="submit" className="btn" data-testid="output-search-find">
        Find
      </button>
      <button
        type="button"
        className="btn"
        data-testid="output-search-previous"
        aria-label="Previous match"
        disabled={search.query === "" || search.matches.length === 0}
        onClick={previous}
      >
        ↑ Previous
      </button>
      <button
        type="button"
        className="btn"
        data-testid="output-search-next"
        aria-label="Next match"
        disabled={search.query === "" || (search.matches.length === 0 && search.scanFrom === null)}
        onClick={next}
      >
        ↓ Next
      </button>
      <span
        className="muted output-search-summary"
        role="status"
        data-testid="output-search-summary"
        data-state={search.loading ? "searching" : "idle"}
      >
        {search.error ? `Search failed: ${search.error}` : summary}
      </span>
    </form>
  )
}

function Pager({ totalLines }: { readonly totalLines: number | undefined }) {
  const offset = useOutputViewerStore(selectViewerOffset)
  const page = useOutputViewerStore(selectViewerPage)
  const goTo = useOutputViewerStore((state) => state.goTo)
  const [line, setLine] = useState("")
  const last = totalLines === undefined ? undefined : pageOffsetOf(totalLines)
  const shownFrom = page ? page.offset + 1 : offset + 1
  const shownTo = page ? page.offset + page.lines.length : offset
  const hasNext = page ? page.nextOffset !== null : false
  const jump = (event: FormEvent) => {
    event.preventDefault()
    const number = Number.parseInt(line, 10)
    if (Number.isFinite(number) && number >= 1) goTo(pageOffsetOf(number))
  }
  return (
    <div className="output-pager" data-testid="output-pager">
      <span data-testid="output-range">
        Lines {formatCount(shownFrom)}–{formatCount(shownTo)}
        {totalLines !== undefined && <> of {formatCount(totalLines)}</>}
      </span>
      <button type="button" className="btn" data-testid="output-first" disabled={offset === 0} onClick={() => goTo(0)}>
        First
      </button>
      <button
        type="button"
        className="btn"
        data-testid="output-previous-page"
        disabled={offset === 0}
        onClick={() => goTo(offset - PAGE_LINES)}
      >
        Previous page
      </button>
      <button
        type="button"
        className="btn"
        data-testid="output-next-page"
        disabled={!hasNext}
        onClick={() => page?.nextOffset != null && goTo(page.nextOffset)}
      >
        Next page
      </button>
      <button
        type="button"
        className="btn"
        data-testid="output-last"
        disabled={last === undefined || last === offset}
        onClick={() => last !== undefined && goTo(last)}
      >
        Last
      </button>
      <form className="output-goto" onSubmit={jump}>
        <label className="field field-check">
          Line
          <input
            type="number"
            min={1}
            inputMode="numeric"
            data-testid="output-goto-line"
            value={line}
            onChange={(event) => setLine(event.target.value)}
          />
        </label>
        <button type="submit" className="btn">
          Go
        </button>
      </form>
    </div>
  )
}

function Lines() {
  const page = useOutputViewerStore(selectViewerPage)
  const query = useOutputViewerStore((state) => state.search.query)
  const current = useOutputViewerStore(selectCurrentMatchLine)
  const list = useRef<HTMLOListElement>(null)
  useEffect(() => {
    if (current === undefined) return
    list.current?.querySelector<HTMLElement>(`[data-line="${current}"]`)?.scrollIntoView({ block: "center" })
  }, [current, page])
  if (!page) return <p className="muted">Loading…</p>
  if (page.lines.length === 0)
    return (
      <p className="muted" data-testid="output-no-lines">
        No lines here.
      </p>
    )
  return (
    <ol className="output-lines mono" data-testid="output-lines" ref={list}>
      {page.lines.map((line) => (
        <LineItem key={line.number} line={line} query={query} current={line.number === current} />
      ))}
    </ol>
  )
}

/** One line; occurrences of the search text are marked, and the current match line stands out. */
function LineItem({
  line,
  query,
  current,
}: {
  readonly line: OutputLine
  readonly query: string
  readonly current: boolean
}) {
  const text = escapeForDisplay(line.text)
  return (
    <li
      className={`output-line${current ? " output-line-current" : ""}`}
      data-testid="output-line"
      data-line={line.number}
      aria-current={current ? "true" : undefined}
    >
      <span className="output-line-number" aria-hidden="true">
        {line.number}
      </span>
      <span className="output-line-text">
        {highlight(text, query)}
        {line.cut && <span className="muted output-line-cut"> … (line cut; the file keeps it whole)</span>}
      </span>
    </li>
  )
}

function highlight(text: string, query: string) {
  if (query === "") return text
  const lower = text.toLowerCase()
  const needle = query.toLowerCase()
  const parts = []
  let from = 0
  for (let at = lower.indexOf(needle); at !== -1 && needle.length > 0; at = lower.indexOf(needle, from)) {
    if (at > from) parts.push(text.slice(from, at))
    parts.push(<mark key={at}>{text.slice(at, at + needle.length)}</mark>)
    from = at + needle.length
  }
  if (from === 0) return text
  parts.push(text.slice(from))
  return parts
}
