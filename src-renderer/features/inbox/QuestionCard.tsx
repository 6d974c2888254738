import { useId, useState } from "react"
import type { QuestionInfo } from "@contract/model"
import { selectFailure, selectIsSending, useInboxStore, type InboxQuestion } from "../../state/inboxStore"
import { selectSession, useSessionsStore } from "../../state/sessionsStore"
import { EscapedText } from "./EscapedText"
import { useArmed } from "./useArmed"
import { useInboxActions } from "./useInboxActions"
import { Age } from "../shell/Age"

interface Choice {
  readonly labels: ReadonlyArray<string>
  readonly other: string
}

const EMPTY_CHOICE: Choice = { labels: [], other: "" }

/** The labels sent for one question: the options picked, then the person's own answer if any. */
export const answerOf = (pick: Choice): ReadonlyArray<string> =>
  pick.other.trim() === "" ? pick.labels : [...pick.labels, pick.other.trim()]

function Question({
  info,
  index,
  pick,
  onChange,
  disabled,
}: {
  readonly info: QuestionInfo
  readonly index: number
  readonly pick: Choice
  readonly onChange: (pick: Choice) => void
  readonly disabled: boolean
}) {
  const name = useId()
  const multiple = info.multiple === true
  const choose = (label: string, on: boolean) => {
    if (multiple)
      onChange({ ...pick, labels: on ? [...pick.labels, label] : pick.labels.filter((picked) => picked !== label) })
    else onChange({ labels: on ? [label] : [], other: on ? "" : pick.other })
  }
  return (
    <fieldset className="question" data-testid="question" disabled={disabled}>
      <legend>
        <span className="question-header">
          <EscapedText text={info.header} />
        </span>{" "}
        <span className="question-text">
          <EscapedText text={info.question} />
        </span>
        {multiple && <span className="question-multiple"> (choose any)</span>}
      </legend>
      <ul className="question-options">
        {info.options.map((option, optionIndex) => (
          <li key={optionIndex}>
            <label className="question-option">
              <input
                type={multiple ? "checkbox" : "radio"}
                name={`${name}-${index}`}
                checked={pick.labels.includes(option.label)}
                onChange={(event) => choose(option.label, event.target.checked)}
              />
              <span className="question-label">
                <EscapedText text={option.label} />
              </span>
              {option.description && (
                <span className="question-description">
                  <EscapedText text={option.description} />
                </span>
              )}
            </label>
          </li>
        ))}
      </ul>
      <label className="question-other">
        <span>Your own answer</span>
        <input
          type="text"
          value={pick.other}
          maxLength={2000}
          onChange={(event) =>
            onChange(multiple ? { ...pick, other: event.target.value } : { labels: [], other: event.target.value })
          }
        />
      </label>
    </fieldset>
  )
}

/** Questions a model asked; answered together. Dismissing them stops the asking session. */
export function QuestionCard({ item }: { readonly item: InboxQuestion }) {
  const session = useSessionsStore(selectSession(item.sessionID))
  const sending = useInboxStore(selectIsSending(item.id))
  const failure = useInboxStore(selectFailure(item.id))
  const setCursor = useInboxStore((state) => state.setCursor)
  const { cursor, armed } = useArmed(item.id)
  const actions = useInboxActions()
  const [picks, setPicks] = useState<ReadonlyArray<Choice>>(() => item.request.questions.map(() => EMPTY_CHOICE))
  const answered = picks.some((pick) => answerOf(pick).length > 0)
  return (
    <article
      className="card card-question"
      data-testid="question-card"
      data-id={item.id}
      data-cursor={cursor}
      data-armed={armed}
      data-state={sending ? "sending" : failure ? "failed" : "pending"}
      aria-current={cursor ? "true" : undefined}
      aria-label="Question"
      onMouseDown={() => setCursor(item.id)}
    >
      <header className="card-header">
        <span className="card-tool">question</span>
        <span className="card-agent" title="Agent">
          <EscapedText text={session?.agent ?? "?"} />
        </span>
        <span className="card-age" title="Waiting for">
          <Age since={item.askedAt} />
        </span>
      </header>
      <form
        className="card-body"
        onSubmit={(event) => {
          event.preventDefault()
          void actions.answerQuestion(item.id, picks.map(answerOf))
        }}
      >
        {item.request.questions.map((info, index) => (
          <Question
            key={index}
            info={info}
            index={index}
            pick={picks[index] ?? EMPTY_CHOICE}
            disabled={sending}
            onChange={(pick) => setPicks((current) => current.map((old, at) => (at === index ? pick : old)))}
          />
        ))}
        <div className="card-actions">
          <button type="submit" className="button button-primary" disabled={sending || !answered}>
            Send answers
          </button>
          <button
            type="button"
            className="button button-danger"
            disabled={sending}
            onClick={() => void actions.dismissQuestion(item.id)}
          >
            Dismiss <kbd>r</kbd>
          </button>
          {sending && <span className="card-sending">Sending…</span>}
        </div>
      </form>
      {failure && (
        <p className="card-failure" role="alert" data-testid="card-failure">
          {failure}
        </p>
      )}
    </article>
  )
}
