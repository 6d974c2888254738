import { useSyncExternalStore } from "react"

// One shared clock per refresh interval for every age and countdown on screen: a single timer,
// running only while something shows the time, so a thousand cards do not start a thousand timers.

interface Clock {
  now: number
  timer: ReturnType<typeof setInterval> | undefined
  readonly listeners: Set<() => void>
  readonly subscribe: (listener: () => void) => () => void
  readonly read: () => number
}

const clocks = new Map<number, Clock>()

function clockFor(intervalMs: number): Clock {
  const existing = clocks.get(intervalMs)
  if (existing) return existing
  const clock: Clock = {
    now: Date.now(),
    timer: undefined,
    listeners: new Set(),
    subscribe: (listener) => {
      clock.listeners.add(listener)
      if (clock.timer === undefined) {
        clock.now = Date.now()
        clock.timer = setInterval(() => {
          clock.now = Date.now()
          for (const notify of clock.listeners) notify()
        }, intervalMs)
      }
      return () => {
        clock.listeners.delete(listener)
        if (clock.listeners.size === 0 && clock.timer !== undefined) {
          clearInterval(clock.timer)
          clock.timer = undefined
        }
      }
    },
    read: () => clock.now,
  }
  clocks.set(intervalMs, clock)
  return clock
}

/** The current time, refreshed every `intervalMs` while any component uses that interval. */
export function useNow(intervalMs = 1000): number {
  const clock = clockFor(intervalMs)
  return useSyncExternalStore(clock.subscribe, clock.read)
}
