import { act, type ReactNode } from "react"
import { createRoot, type Root } from "react-dom/client"
import type { Bridge } from "@renderer/bridge/Bridge"
import { BridgeProvider } from "@renderer/bridge/BridgeContext"

;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true

/** Renders `ui` under a bridge into a fresh container; `unmount` removes it again. */
export function render(ui: ReactNode, bridge: Bridge) {
  const container = document.createElement("div")
  document.body.append(container)
  let root: Root | undefined
  act(() => {
    root = createRoot(container)
    root.render(<BridgeProvider bridge={bridge}>{ui}</BridgeProvider>)
  })
  return {
    container,
    unmount: () => {
      act(() => root?.unmount())
      container.remove()
    },
  }
}

/** Lets pending promise callbacks and the renders they cause run. */
export async function flush() {
  for (let i = 0; i < 5; i++) await act(async () => await new Promise((resolve) => setTimeout(resolve, 0)))
}

/** Types into an input or select the way React notices (the native value setter, then `input`/`change`). */
export function typeInto(element: HTMLInputElement | HTMLSelectElement, value: string) {
  const prototype = element instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype
  const setter = Object.getOwnPropertyDescriptor(prototype, "value")!.set!
  act(() => {
    setter.call(element, value)
    element.dispatchEvent(new Event(element instanceof HTMLSelectElement ? "change" : "input", { bubbles: true }))
  })
}

export function click(element: Element | null) {
  if (!element) throw new Error("nothing to click")
  act(() => (element as HTMLElement).click())
}

export function submit(form: Element | null) {
  if (!form) throw new Error("no form")
  act(() => {
    form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }))
  })
}

/** The element with `data-testid`, within `root`. */
export const byTestId = (root: ParentNode, id: string) => root.querySelector<HTMLElement>(`[data-testid="${id}"]`)
export const allByTestId = (root: ParentNode, id: string) =>
  Array.from(root.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`))
