import { useSyncExternalStore } from "react"

// One shared clock for every age on screen: a single interval, running only while something shows
// an age, so a thousand cards do not start a thousand timers.

const TICK_MS = 1000
let now = Date.now()
let timer: ReturnType<typeof setInterval> | undefined
const listeners = new Set<() => void>()

function subscribe(listener: () => void) {
  listeners.add(listener)
  if (timer === undefined) {
    now = Date.now()
    timer = setInterval(() => {
      now = Date.now()
      for (const notify of listeners) notify()
    }, TICK_MS)
  }
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer)
      timer = undefined
    }
  }
}

const read = () => now

/** The current time, updated every second while any component uses it. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, read)
}
