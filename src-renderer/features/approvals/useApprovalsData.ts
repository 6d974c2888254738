import { useEffect, useMemo, useRef } from "react"
import { useBridge } from "../../bridge/BridgeContext"
import {
  selectAgents,
  selectAnnotations,
  selectApprovalIds,
  selectApprovalsById,
  unannotatedIds,
  useApprovalsStore,
} from "../../state/approvalsStore"
import { selectIndicator, useConnectionStore } from "../../state/connectionStore"
import { errorMessage } from "../../lib/errors"

/** Most ids asked for in one `approvals.list` call (the contract allows 10 000). */
const BATCH = 500

/**
 * Keeps every listed approval annotated (origin, shadowing): whenever rows appear or a pattern
 * changes, the rows without a current annotation are fetched, each at most once at a time.
 */
export function useApprovalAnnotations() {
  const bridge = useBridge()
  const live = useConnectionStore(selectIndicator) === "live"
  const ids = useApprovalsStore(selectApprovalIds)
  const byId = useApprovalsStore(selectApprovalsById)
  const annotations = useApprovalsStore(selectAnnotations)
  const missing = useMemo(() => unannotatedIds({ ids, byId, annotations }), [ids, byId, annotations])
  const inFlight = useRef(new Set<string>())

  useEffect(() => {
    if (!live) return
    const wanted = missing.filter((id) => !inFlight.current.has(id))
    for (let start = 0; start < wanted.length; start += BATCH) {
      const batch = wanted.slice(start, start + BATCH)
      for (const id of batch) inFlight.current.add(id)
      bridge.invoke("approvals.list", { ids: batch }).then(
        (entries) => {
          for (const id of batch) inFlight.current.delete(id)
          useApprovalsStore.getState().annotationsLoaded(entries)
        },
        (error: unknown) => {
          for (const id of batch) inFlight.current.delete(id)
          useApprovalsStore.getState().failed(`Cannot load where approvals came from (${errorMessage(error)}).`)
        },
      )
    }
  }, [bridge, live, missing])
}

/** Loads the configured agents once per connection (they change only when Gatehouse restarts). */
export function useAgents() {
  const bridge = useBridge()
  const live = useConnectionStore(selectIndicator) === "live"
  const agents = useApprovalsStore(selectAgents)
  const asked = useRef(false)
  useEffect(() => {
    if (!live || agents !== null || asked.current) return
    asked.current = true
    bridge.invoke("agents.list", undefined).then(
      (list) => {
        asked.current = false
        useApprovalsStore.getState().agentsLoaded(list)
      },
      (error: unknown) => {
        asked.current = false
        useApprovalsStore.getState().failed(`Cannot load the configured agent rules (${errorMessage(error)}).`)
      },
    )
  }, [bridge, live, agents])
  return agents
}
