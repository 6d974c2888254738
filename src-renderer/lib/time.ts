/**
 * The millisecond time inside an ascending id (`<prefix>_` + 16 hex digits of `ms × 4096 + counter`
 * + 12 random characters, SPEC-CORE C.4): the first 13 hex digits are the milliseconds.
 * `NaN` for a string that is not such an id.
 */
export function timestampOfId(id: string): number {
  const body = id.slice(id.indexOf("_") + 1)
  if (!/^[0-9a-f]{16}/.test(body)) return Number.NaN
  return Number.parseInt(body.slice(0, 13), 16)
}

/** How long ago, compactly: `now`, `42s`, `7m`, `3h 5m`, `2d 4h`. */
export function formatAge(ms: number): string {
  if (!Number.isFinite(ms) || ms < 1000) return "now"
  const seconds = Math.floor(ms / 1000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return minutes % 60 === 0 ? `${hours}h` : `${hours}h ${minutes % 60}m`
  const days = Math.floor(hours / 24)
  return hours % 24 === 0 ? `${days}d` : `${days}d ${hours % 24}h`
}
