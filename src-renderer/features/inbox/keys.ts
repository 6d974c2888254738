/** The inbox's keys, as `?` shows them. Letters are case-sensitive: `R` is Shift+r. */
export const INBOX_KEYS: ReadonlyArray<readonly [key: string, what: string]> = [
  ["j", "Next card"],
  ["k", "Previous card"],
  ["o", "Approve once"],
  ["a", "Approve always (saves the patterns shown on the card)"],
  ["r", "Reject (a question: dismiss it)"],
  ["f", "Reject with feedback for the model"],
  ["R", "Reject every ask of this card's session"],
  ["x", "Select or unselect; o/a/r/f then answer every selected ask"],
  ["Esc", "Close a box, clear the selection"],
  ["?", "Show or hide these keys"],
]

/** Whether a key event comes from somewhere typing happens, where letters are text, not commands. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  if (target.isContentEditable) return true
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true
  if (target instanceof HTMLInputElement)
    return !["checkbox", "radio", "button", "submit", "reset", "range", "color"].includes(target.type)
  return false
}
