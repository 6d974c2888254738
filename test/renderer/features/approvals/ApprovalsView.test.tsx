import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { ApprovalConflictError } from "@contract/methods"
import type { AgentInfo, ApprovalEntry, SavedApproval } from "@contract/model"
import { ApprovalsView } from "@renderer/features/approvals/ApprovalsView"
import { initialApprovalsState, useApprovalsStore } from "@renderer/state/approvalsStore"
import { useConnectionStore } from "@renderer/state/connectionStore"
import { useProjectsStore } from "@renderer/state/projectsStore"
import { project, projectId, snapshot } from "../../support/fixtures"
import { approval, approvalId } from "../../support/partB"
import { allByTestId, byTestId, click, flush, render, submit, typeInto } from "../../support/render"
import { scriptedBridge, type Answers } from "../../support/scriptedBridge"

const agents: ReadonlyArray<AgentInfo> = [
  {
    name: "build",
    description: "default",
    mode: "primary",
    hidden: false,
    rules: [{ action: "*", resource: "*", effect: "allow" }],
  },
  {
    name: "plan",
    description: "plan",
    mode: "primary",
    hidden: false,
    rules: [{ action: "edit", resource: "*", effect: "deny" }],
  },
  {
    name: "title",
    description: "helper",
    mode: "primary",
    hidden: true,
    rules: [{ action: "*", resource: "*", effect: "deny" }],
  },
]

const entryOf = (saved: SavedApproval): ApprovalEntry => ({
  approval: saved,
  origin: null,
  shadowedBy:
    saved.action === "edit"
      ? [{ agent: "plan", rule: { action: "edit", resource: "*", effect: "deny" }, ruleIndex: 0 }]
      : [],
})

const readBlob = (blob: Blob) =>
  new Promise<string>((resolve) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.readAsText(blob)
  })

let mounted: ReturnType<typeof render> | undefined

function mount(answers: Answers = {}, approvals: ReadonlyArray<SavedApproval> = []) {
  useApprovalsStore.getState().loadSnapshot({ ...snapshot(1), approvals })
  const scripted = scriptedBridge({
    "agents.list": () => agents,
    "approvals.list": (payload) => approvals.filter((saved) => payload.ids?.includes(saved.id) ?? true).map(entryOf),
    ...answers,
  })
  mounted = render(<ApprovalsView />, scripted.bridge)
  return { ...scripted, container: mounted.container }
}

beforeEach(() => {
  useConnectionStore.setState({ indicator: "live", problem: null, info: null })
  useProjectsStore.getState().loadSnapshot(snapshot(1, [], [project(1), project(2)]))
})

afterEach(() => {
  mounted?.unmount()
  useApprovalsStore.setState(initialApprovalsState)
  useConnectionStore.setState({ indicator: "connecting", problem: null, info: null })
})

describe("ApprovalsView", () => {
  it("explains the empty editor and still shows the configured rules, read-only", async () => {
    const { container } = mount()
    await flush()
    expect(byTestId(container, "empty-state")).not.toBeNull()
    const shown = allByTestId(container, "agent").map((agent) => agent.dataset.agent)
    expect(shown).toEqual(["build", "plan", "title"])
    expect(container.querySelector('[data-testid="agent-rules"] input')).toBeNull()
  })

  it("groups approvals by project and action and flags the ones a configured deny shadows", async () => {
    const { container, callsOf } = mount({}, [
      approval(1, { action: "edit", resource: "src/*" }),
      approval(2, { action: "bash", resource: "make *", hitCount: 3, lastUsedAt: Date.now() }),
      approval(3, { projectID: projectId(2), action: "read", resource: "*.md" }),
    ])
    await flush()
    expect(allByTestId(container, "approval-project").map((section) => section.dataset.projectId)).toEqual([
      projectId(1),
      projectId(2),
    ])
    expect(allByTestId(container, "approval-action").map((section) => section.dataset.action)).toEqual([
      "bash",
      "edit",
      "read",
    ])
    expect(callsOf("approvals.list")[0]?.payload).toEqual({ ids: [approvalId(1), approvalId(2), approvalId(3)] })
    const edit = container.querySelector(`[data-approval-id="${approvalId(1)}"]`)!
    expect(edit.getAttribute("data-shadowed")).toBe("true")
    expect(byTestId(edit, "approval-shadowed")?.textContent).toContain("Ineffective for plan")
    expect(byTestId(edit, "approval-shadow-rule")?.textContent).toContain("edit * → deny")
    const make = container.querySelector(`[data-approval-id="${approvalId(2)}"]`)!
    expect(byTestId(make, "approval-hits")?.textContent).toBe("3")
    expect(byTestId(make, "approval-shadowed")).toBeNull()
  })

  it("filters by text and reports when nothing matches", async () => {
    const { container } = mount({}, [approval(1, { resource: "git status *" }), approval(2, { resource: "make *" })])
    await flush()
    typeInto(byTestId(container, "approvals-filter") as HTMLInputElement, "git")
    expect(allByTestId(container, "approval-row").map((row) => row.dataset.resource)).toEqual(["git status *"])
    typeInto(byTestId(container, "approvals-filter") as HTMLInputElement, "nothing like it")
    expect(byTestId(container, "approvals-no-match")).not.toBeNull()
  })

  it("checks an edited pattern as it is typed and sends only a valid one", async () => {
    const { container, callsOf } = mount(
      { "approvals.update": (payload) => ({ ...approval(1), resource: payload.resource }) },
      [approval(1)],
    )
    await flush()
    click(byTestId(container, "approval-edit"))
    const input = byTestId(container, "approval-edit-input") as HTMLInputElement
    typeInto(input, " padded")
    expect(byTestId(container, "approval-edit-error")?.textContent).toContain("Remove the spaces")
    expect((byTestId(container, "approval-edit-save") as HTMLButtonElement).disabled).toBe(true)
    typeInto(input, "")
    expect(byTestId(container, "approval-edit-error")?.textContent).toContain("Enter a pattern")
    typeInto(input, "*")
    expect(byTestId(container, "approval-edit-note")?.textContent).toContain("matches everything")
    expect((byTestId(container, "approval-edit-save") as HTMLButtonElement).disabled).toBe(false)
    typeInto(input, "make test *")
    expect(byTestId(container, "approval-edit-error")).toBeNull()
    expect(byTestId(container, "approval-edit-note")).toBeNull()
    submit(byTestId(container, "approval-edit-form"))
    await flush()
    expect(callsOf("approvals.update").map((call) => call.payload)).toEqual([
      { id: approvalId(1), resource: "make test *" },
    ])
    expect(byTestId(container, "approval-edit-form")).toBeNull()
  })

  it("shows the server's refusal under the field and keeps the form open", async () => {
    const { container } = mount(
      {
        "approvals.update": () => {
          throw new ApprovalConflictError({ projectID: projectId(1), action: "bash", resource: "make *" })
        },
      },
      [approval(1)],
    )
    await flush()
    click(byTestId(container, "approval-edit"))
    typeInto(byTestId(container, "approval-edit-input") as HTMLInputElement, "make *")
    submit(byTestId(container, "approval-edit-form"))
    await flush()
    expect(byTestId(container, "approval-edit-error")?.textContent).toContain("already has a saved approval")
    expect(byTestId(container, "approval-edit-form")).not.toBeNull()
  })

  it("revokes only after confirmation", async () => {
    const { container, callsOf } = mount({ "approvals.remove": () => null }, [approval(1)])
    await flush()
    click(byTestId(container, "approval-revoke"))
    expect(callsOf("approvals.remove")).toHaveLength(0)
    click(byTestId(container, "approval-revoke-cancel"))
    click(byTestId(container, "approval-revoke"))
    click(byTestId(container, "approval-revoke-yes"))
    await flush()
    expect(callsOf("approvals.remove").map((call) => call.payload)).toEqual([{ id: approvalId(1) }])
  })

  it("adds an approval by hand after checking action and pattern", async () => {
    const { container, callsOf } = mount({ "approvals.add": (payload) => approval(9, payload) })
    await flush()
    click(byTestId(container, "approvals-add"))
    const form = byTestId(container, "approval-add-form")!
    typeInto(byTestId(form, "approval-add-action") as HTMLInputElement, "bash *")
    expect(byTestId(form, "approval-add-action-error")?.textContent).toContain("no wildcards")
    submit(form)
    expect(callsOf("approvals.add")).toHaveLength(0)
    typeInto(byTestId(form, "approval-add-action") as HTMLInputElement, "bash")
    typeInto(byTestId(form, "approval-add-project") as HTMLSelectElement, projectId(2))
    typeInto(byTestId(form, "approval-add-resource") as HTMLInputElement, "npm test *")
    submit(form)
    await flush()
    expect(callsOf("approvals.add").map((call) => call.payload)).toEqual([
      { projectID: projectId(2), action: "bash", resource: "npm test *" },
    ])
    expect(byTestId(container, "approval-add-form")).toBeNull()
  })

  it("exports the shown project's approvals as a JSON download", async () => {
    const created: Array<Blob> = []
    const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL }
    URL.createObjectURL = (blob: Blob) => {
      created.push(blob)
      return "blob:test"
    }
    URL.revokeObjectURL = () => {}
    const downloads: Array<string> = []
    const onClick = (event: MouseEvent) => {
      const anchor = event.target as HTMLAnchorElement
      if (anchor.download) downloads.push(anchor.download)
      // jsdom cannot navigate; the browser would save the file here.
      event.preventDefault()
    }
    document.addEventListener("click", onClick)
    try {
      const { container, callsOf } = mount({ "approvals.export": () => '{"approvals":[]}\n' }, [approval(1)])
      await flush()
      typeInto(byTestId(container, "approvals-project-filter") as HTMLSelectElement, projectId(1))
      click(byTestId(container, "approvals-export"))
      await flush()
      expect(callsOf("approvals.export").map((call) => call.payload)).toEqual([{ projectID: projectId(1) }])
      expect(created).toHaveLength(1)
      expect(await readBlob(created[0]!)).toBe('{"approvals":[]}\n')
      expect(downloads).toHaveLength(1)
      expect(downloads[0]).toMatch(/^gatehouse-approvals-.*\.json$/)
    } finally {
      document.removeEventListener("click", onClick)
      URL.createObjectURL = original.create
      URL.revokeObjectURL = original.revoke
    }
  })

  it("shows why the rules could not be loaded", async () => {
    const { container } = mount({
      "agents.list": () => {
        throw new Error("socket closed")
      },
    })
    await flush()
    expect(byTestId(container, "approvals-problem")?.textContent).toContain("socket closed")
  })
})
