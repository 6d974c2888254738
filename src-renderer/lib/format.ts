// Plain formatting for tables: sizes, counts, times and durations, the same everywhere.

const integer = new Intl.NumberFormat("en-US")

/** `1,234` */
export const formatCount = (value: number) => integer.format(value)

/** Exact bytes with a readable unit beside them: `51,200 B (50.0 KiB)`. */
export function formatBytes(bytes: number): string {
  const exact = `${integer.format(bytes)} B`
  if (bytes < 1024) return exact
  const units = ["KiB", "MiB", "GiB"]
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  return `${exact} (${value.toFixed(1)} ${units[unit]})`
}

const pad = (n: number) => String(n).padStart(2, "0")

/** Local date and time to the second, sortable: `2025-03-04 17:05:09`. */
export function formatDateTime(millis: number): string {
  const d = new Date(millis)
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
}

/** A run time: `840 ms`, `4.2 s`, `3m 05s`, `1h 02m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "—"
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const seconds = Math.floor(ms / 1000)
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m ${pad(seconds % 60)}s`
  return `${Math.floor(minutes / 60)}h ${pad(minutes % 60)}m`
}
