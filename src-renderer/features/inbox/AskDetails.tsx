import type { InboxAsk } from "../../state/inboxStore"
import { editDiff, patchDiff, unifiedDiff } from "./diffLines"
import { DiffView } from "./DiffView"
import { EscapedText, LongText } from "./EscapedText"

// What a person needs to decide an ask, by what the tool put into it (see src-main/tools/*):
// bash — the command (the resource), its working directory and advisory warnings; edit — the
// files, and the diff from the call's input (edit: old → new string; write: new content;
// apply_patch: the patch); webfetch — the URL; every other action — its resources and metadata.

const record = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** A metadata value as text: strings as they are, everything else as JSON. */
const show = (value: unknown): string => {
  if (typeof value === "string") return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

function Field({ label, value, testId }: { readonly label: string; readonly value: string; readonly testId?: string }) {
  return (
    <div className="ask-field">
      <dt>
        <EscapedText text={label} />
      </dt>
      <dd data-testid={testId}>
        <EscapedText text={value} />
      </dd>
    </div>
  )
}

function Resources({ label, resources }: { readonly label: string; readonly resources: ReadonlyArray<string> }) {
  return (
    <div className="ask-resources">
      <span className="ask-label">{label}</span>
      <ul data-testid="ask-resources">
        {resources.map((resource, index) => (
          <li key={index}>
            <code>
              <EscapedText text={resource} />
            </code>
          </li>
        ))}
      </ul>
    </div>
  )
}

/** Metadata the specific views did not already show, as label/value pairs. */
function Metadata({
  metadata,
  shown,
}: {
  readonly metadata: Readonly<Record<string, unknown>>
  readonly shown: ReadonlyArray<string>
}) {
  const entries = Object.entries(metadata).filter(([key]) => !shown.includes(key))
  if (entries.length === 0) return null
  return (
    <dl className="ask-metadata" data-testid="ask-metadata">
      {entries.map(([key, value]) => (
        <Field key={key} label={key} value={show(value)} />
      ))}
    </dl>
  )
}

function Warnings({ warnings }: { readonly warnings: unknown }) {
  if (!Array.isArray(warnings) || warnings.length === 0) return null
  return (
    <ul className="ask-warnings" data-testid="ask-warnings" aria-label="Warnings">
      {warnings.map((warning, index) => (
        <li key={index}>
          <EscapedText text={show(warning)} />
        </li>
      ))}
    </ul>
  )
}

function BashDetails({ ask }: { readonly ask: InboxAsk }) {
  const metadata = record(ask.request.metadata)
  const command = ask.request.resources[0] ?? text(record(ask.call?.input).command) ?? ""
  const workdir = text(metadata.workdir)
  return (
    <>
      <LongText text={command} className="ask-command" />
      {ask.request.resources.length > 1 && <Resources label="Also" resources={ask.request.resources.slice(1)} />}
      <dl className="ask-metadata">
        {workdir !== undefined && <Field label="in" value={workdir} testId="ask-workdir" />}
      </dl>
      <Warnings warnings={metadata.warnings} />
      <Metadata metadata={metadata} shown={["workdir", "warnings"]} />
    </>
  )
}

function EditDetails({ ask }: { readonly ask: InboxAsk }) {
  const input = record(ask.call?.input)
  const tool = ask.call?.tool
  const oldString = text(input.oldString)
  const newString = text(input.newString)
  const content = text(input.content)
  const patch = text(input.patchText)
  const metadata = record(ask.request.metadata)
  const diff = text(metadata.diff)
  return (
    <>
      <Resources label={ask.request.resources.length > 1 ? "Files" : "File"} resources={ask.request.resources} />
      {tool === "edit" && oldString !== undefined && newString !== undefined && (
        <DiffView
          lines={editDiff(oldString, newString)}
          label={input.replaceAll === true ? "Replace every occurrence" : "Replace"}
        />
      )}
      {tool === "write" && content !== undefined && <DiffView lines={editDiff("", content)} label="New content" />}
      {tool === "apply_patch" && patch !== undefined && <DiffView lines={patchDiff(patch)} label="Patch" />}
      {/* An agent server's edit ask (OpenCode) carries its change as a unified diff instead. */}
      {ask.call === null && diff !== undefined && <DiffView lines={unifiedDiff(diff)} label="Diff" />}
      <Metadata metadata={metadata} shown={ask.call === null && diff !== undefined ? ["diff"] : []} />
    </>
  )
}

function FetchDetails({ ask }: { readonly ask: InboxAsk }) {
  const metadata = record(ask.request.metadata)
  return (
    <>
      <div className="ask-url" data-testid="ask-url">
        <span className="ask-label">URL</span>
        <LongText text={ask.request.resources[0] ?? text(metadata.url) ?? ""} />
      </div>
      <Metadata metadata={metadata} shown={["url"]} />
    </>
  )
}

function ExternalDetails({ ask }: { readonly ask: InboxAsk }) {
  const metadata = record(ask.request.metadata)
  const directory = text(metadata.directory)
  return (
    <>
      <p className="ask-external">
        Outside the project: <code>{directory !== undefined ? <EscapedText text={directory} /> : "?"}</code>
      </p>
      <Resources label="Resources" resources={ask.request.resources} />
      <Metadata metadata={metadata} shown={["directory"]} />
    </>
  )
}

function GenericDetails({ ask }: { readonly ask: InboxAsk }) {
  return (
    <>
      <Resources label="Resources" resources={ask.request.resources} />
      <Metadata metadata={record(ask.request.metadata)} shown={[]} />
    </>
  )
}

/** The material to decide on, chosen by the ask's action. */
export function AskDetails({ ask }: { readonly ask: InboxAsk }) {
  switch (ask.request.action) {
    case "bash":
      return <BashDetails ask={ask} />
    case "edit":
      return <EditDetails ask={ask} />
    case "webfetch":
      return <FetchDetails ask={ask} />
    case "external_directory":
      return <ExternalDetails ask={ask} />
    default:
      return <GenericDetails ask={ask} />
  }
}
