import { Parser } from "htmlparser2"
import TurndownService from "turndown"

// HTML conversions for `webfetch` (SPEC-CORE E.8). Markdown comes from turndown (a maintained
// HTML-to-Markdown library); text comes from htmlparser2's tokenizer, which knows that script and
// style bodies are raw text, so markup-looking strings inside them never leak into the output.

/** Elements whose content never reaches the extracted text. */
const SKIPPED = new Set(["script", "style", "noscript", "iframe", "object", "embed"])

/** Elements HTML closes by itself: they never get a closing tag to balance the skip depth. */
const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
])

let turndown: TurndownService | undefined

function markdownService(): TurndownService {
  if (turndown) return turndown
  const service = new TurndownService({
    headingStyle: "atx",
    hr: "---",
    bulletListMarker: "-",
    codeBlockStyle: "fenced",
    emDelimiter: "*",
  })
  service.remove(["script", "style", "meta", "link"])
  turndown = service
  return service
}

/**
 * HTML → Markdown: ATX headings, `---` rules, `-` bullets, fenced code, `*` emphasis; no
 * script/style/meta/link. Trimmed: whitespace between head elements would otherwise lead the text.
 */
export function htmlToMarkdown(html: string): string {
  return markdownService().turndown(html).trim()
}

/** The document's text (entities decoded), without script, style, noscript, iframe, object or embed content. */
export function htmlToText(html: string): string {
  let text = ""
  let skipDepth = 0
  const parser = new Parser(
    {
      onopentag(name) {
        // A void element (an `<embed>` itself) has no content to skip and no closing tag.
        if (VOID.has(name)) return
        if (skipDepth > 0 || SKIPPED.has(name)) skipDepth++
      },
      ontext(chunk) {
        if (skipDepth === 0) text += chunk
      },
      onclosetag(name) {
        if (VOID.has(name)) return
        if (skipDepth > 0) skipDepth--
      },
    },
    { decodeEntities: true },
  )
  parser.write(html)
  parser.end()
  return text.trim()
}
