// How long a connection waits before its next attempt: exponential from `initialMs`, capped at
// `maxMs`, spread by ±`jitter` so many connections that dropped together do not return together.

export interface Backoff {
  readonly initialMs: number
  readonly maxMs: number
  readonly factor: number
  /** Fraction of the delay added or removed at random (0: none). */
  readonly jitter: number
}

export const defaultBackoff: Backoff = { initialMs: 500, maxMs: 30_000, factor: 2, jitter: 0.2 }

/** The wait before attempt `attempt + 1` after `attempt` failures in a row (0: the first retry). */
export function delayMs(
  attempt: number,
  backoff: Backoff = defaultBackoff,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, Math.floor(attempt))
  const base = Math.min(backoff.maxMs, backoff.initialMs * Math.pow(backoff.factor, Math.min(exponent, 64)))
  const spread = base * backoff.jitter * (random() * 2 - 1)
  return Math.max(0, Math.min(backoff.maxMs, Math.round(base + spread)))
}
