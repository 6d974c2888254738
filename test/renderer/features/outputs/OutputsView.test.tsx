import { act } from "react"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { OutputsReadInput } from "@contract/methods"
import { OutputsView } from "@renderer/features/outputs/OutputsView"
import { useConnectionStore } from "@renderer/state/connectionStore"
import { initialOutputViewerState, useOutputViewerStore } from "@renderer/state/outputViewerStore"
import { initialOutputsState, useOutputsStore } from "@renderer/state/outputsStore"
import { useSessionsStore } from "@renderer/state/sessionsStore"
import { session, snapshot } from "../../support/fixtures"
import { DAY, output, outputId } from "../../support/partB"
import { allByTestId, byTestId, click, flush, render, submit, typeInto } from "../../support/render"
import { scriptedBridge, type Answers } from "../../support/scriptedBridge"

const LINES = 3000
const text = (number: number) => `line ${number}${number % 1000 === 42 ? " NEEDLE here" : ""}`

/** `outputs.read` over an imaginary 3000-line file, the way the core pages and searches it. */
function read(input: OutputsReadInput) {
  const offset = input.offset ?? 0
  const limit = input.limit ?? 200
  const lines = []
  let index = offset
  for (; index < LINES && lines.length < limit; index++) {
    const line = text(index + 1)
    if (!input.search || line.toLowerCase().includes(input.search.toLowerCase()))
      lines.push({ number: index + 1, text: line, cut: false })
  }
  return { output: output(1), lines, nextOffset: index < LINES ? index : null }
}

let mounted: ReturnType<typeof render> | undefined

function mount(answers: Answers = {}) {
  const scripted = scriptedBridge({ "outputs.read": read, ...answers })
  mounted = render(<OutputsView />, scripted.bridge)
  return { ...scripted, container: mounted.container }
}

const now = Date.now()

// jsdom lays nothing out, so it has no scrollIntoView; the viewer calls it to bring a match into view.
Element.prototype.scrollIntoView ??= function scrollIntoView() {}

beforeEach(() => {
  useConnectionStore.setState({ indicator: "live", problem: null, info: null })
  const base = {
    ...snapshot(1, [session(1, { title: "noisy build" })]),
    outputs: [output(1, { lines: LINES, createdAt: now, expiresAt: now + 7 * DAY }), output(2, { expiresAt: now - 1 })],
  }
  useSessionsStore.getState().loadSnapshot(base)
  useOutputsStore.getState().loadSnapshot(base)
})

afterEach(() => {
  mounted?.unmount()
  useOutputsStore.setState(initialOutputsState)
  useOutputViewerStore.setState(initialOutputViewerState)
  useSessionsStore.setState({ ids: [], byId: {} })
  useConnectionStore.setState({ indicator: "connecting", problem: null, info: null })
})

const lineNumbers = (container: HTMLElement) =>
  allByTestId(container, "output-line").map((line) => Number(line.dataset.line))

describe("OutputsView", () => {
  it("explains the empty list", () => {
    useOutputsStore.setState(initialOutputsState)
    const { container } = mount()
    expect(byTestId(container, "empty-state")?.textContent).toContain("7 days")
  })

  it("lists outputs with session, tool, size, lines and retention", () => {
    const { container } = mount()
    const [first, second] = allByTestId(container, "output-row")
    expect(first!.dataset.outputId).toBe(outputId(1))
    expect(byTestId(first!, "output-session")?.textContent).toBe("noisy build")
    expect(byTestId(first!, "output-bytes")?.textContent).toContain("60,001 B")
    expect(byTestId(first!, "output-lines")?.textContent).toBe("3,000")
    expect(byTestId(first!, "output-retention")?.textContent).toBe("expires in 7 days")
    expect(byTestId(second!, "output-retention")?.textContent).toBe("expired")
  })

  it("pages through a file a page at a time, never asking for more than a page", async () => {
    const { container, callsOf } = mount()
    click(byTestId(container, "output-open"))
    await flush()
    expect(lineNumbers(container).slice(0, 2)).toEqual([1, 2])
    click(byTestId(container, "output-next-page"))
    await flush()
    expect(lineNumbers(container)[0]).toBe(201)
    click(byTestId(container, "output-last"))
    await flush()
    expect(lineNumbers(container).at(-1)).toBe(3000)
    expect(byTestId(container, "output-range")?.textContent).toBe("Lines 2,801–3,000 of 3,000")
    const limits = callsOf("outputs.read").map((call) => (call.payload as OutputsReadInput).limit)
    expect(limits.every((limit) => limit !== undefined && limit <= 200)).toBe(true)
  })

  it("finds matches, shows each on its page, and moves to the next and previous one", async () => {
    const { container } = mount()
    click(byTestId(container, "output-open"))
    await flush()
    typeInto(byTestId(container, "output-search") as HTMLInputElement, "needle")
    submit(container.querySelector('form[role="search"]'))
    await flush()
    expect(byTestId(container, "output-search-summary")?.textContent).toBe("1 of 3")
    const current = () =>
      container.querySelector('[data-testid="output-line"][aria-current="true"]') as HTMLElement | null
    expect(current()?.dataset.line).toBe("42")
    expect(current()?.querySelector("mark")?.textContent).toBe("NEEDLE")
    click(byTestId(container, "output-search-next"))
    await flush()
    expect(current()?.dataset.line).toBe("1042")
    expect(byTestId(container, "output-viewer")?.dataset.offset).toBe("1000")
    click(byTestId(container, "output-search-previous"))
    await flush()
    expect(current()?.dataset.line).toBe("42")
  })

  it("deletes after confirmation and then shows the output as deleted", async () => {
    const { container, callsOf } = mount({ "outputs.delete": () => null })
    click(byTestId(container, "output-delete"))
    click(byTestId(container, "output-delete-yes"))
    await flush()
    expect(callsOf("outputs.delete").map((call) => call.payload)).toEqual([{ id: outputId(1) }])
    act(() =>
      useOutputsStore.getState().applyEvents([{ _tag: "tool_output.deleted", id: outputId(1), reason: "deleted" }]),
    )
    const row = container.querySelector(`[data-output-id="${outputId(1)}"]`) as HTMLElement
    expect(row.dataset.retention).toBe("deleted")
    expect(byTestId(row, "output-open")).toBeNull()
  })

  it("says so when the open output is deleted elsewhere", async () => {
    const { container } = mount()
    click(byTestId(container, "output-open"))
    await flush()
    act(() =>
      useOutputsStore.getState().applyEvents([{ _tag: "tool_output.deleted", id: outputId(1), reason: "expired" }]),
    )
    expect(byTestId(container, "output-viewer-removed")?.textContent).toContain("retention")
    click(byTestId(container, "output-back"))
    expect(byTestId(container, "outputs-table")).not.toBeNull()
  })

  it("shows a read failure as an error", async () => {
    const { container } = mount({
      "outputs.read": () => {
        throw new Error("Tool output could not be read")
      },
    })
    click(byTestId(container, "output-open"))
    await flush()
    expect(byTestId(container, "output-viewer-error")?.textContent).toContain("could not be read")
    expect(byTestId(container, "output-viewer")?.dataset.state).toBe("error")
  })
})
