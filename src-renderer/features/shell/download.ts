/**
 * Saves text as a file through the browser's download (a Blob URL clicked from a detached anchor):
 * no navigation, nothing inline, so it works under the CSP in the browser and in Electron.
 */
export function downloadText(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const anchor = document.createElement("a")
  anchor.href = url
  anchor.download = fileName
  anchor.rel = "noopener"
  document.body.append(anchor)
  anchor.click()
  anchor.remove()
  // The click has handed the Blob to the download; revoking later keeps slow browsers safe.
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}

/** `gatehouse-<what>-2025-03-04T17-05-09.<ext>` */
export const exportFileName = (what: string, extension: string, now = new Date()) =>
  `gatehouse-${what}-${now.toISOString().slice(0, 19).replaceAll(":", "-")}.${extension}`
