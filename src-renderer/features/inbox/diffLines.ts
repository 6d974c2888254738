import { diffLines } from "diff"

/** One line of a rendered diff: added, removed, unchanged context, or a patch's own header. */
export interface DiffLine {
  readonly kind: "add" | "del" | "ctx" | "meta"
  readonly text: string
}

const linesOf = (value: string) => {
  const lines = value.split("\n")
  if (lines.at(-1) === "") lines.pop()
  return lines
}

/** The line diff from `before` to `after` (an edit's old and new string; a write's new content). */
export function editDiff(before: string, after: string): ReadonlyArray<DiffLine> {
  const out: Array<DiffLine> = []
  for (const change of diffLines(before, after)) {
    const kind = change.added ? "add" : change.removed ? "del" : "ctx"
    for (const text of linesOf(change.value)) out.push({ kind, text })
  }
  return out
}

/** A diff's text line by line: header lines as `meta`, then `+`/`-`/` ` lines as changes and context. */
function changeLines(text: string, isHeader: (line: string) => boolean): ReadonlyArray<DiffLine> {
  return linesOf(text).map((line): DiffLine => {
    if (isHeader(line)) return { kind: "meta", text: line }
    if (line.startsWith("+")) return { kind: "add", text: line.slice(1) }
    if (line.startsWith("-")) return { kind: "del", text: line.slice(1) }
    return { kind: "ctx", text: line.startsWith(" ") ? line.slice(1) : line }
  })
}

/** An `apply_patch` text: `***`/`@@` lines are its headers. */
export const patchDiff = (patchText: string) =>
  changeLines(patchText, (line) => line.startsWith("***") || line.startsWith("@@"))

/** A unified diff (OpenCode's `metadata.diff` for an edit ask): `---`/`+++`/`@@`/`Index:`/`===` headers. */
export const unifiedDiff = (diffText: string) =>
  changeLines(diffText, (line) => /^(---|\+\+\+|@@|Index: |=+$|\\ No newline)/.test(line))
