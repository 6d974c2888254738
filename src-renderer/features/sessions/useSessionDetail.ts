import { useEffect } from "react"
import { useBridge } from "../../bridge/BridgeContext"
import { selectIndicator, useConnectionStore } from "../../state/connectionStore"
import {
  selectDetailGeneration,
  selectDetailSessionId,
  selectDetailStatus,
  selectStaleDecisions,
  useSessionDetailStore,
} from "../../state/sessionDetailStore"
import { errorMessage } from "../../lib/errors"

/**
 * Fetches the open session's detail whenever the store asks for it (opened, or reloaded after a
 * resync), and its decisions whenever a permission event made them stale. Answers carry the
 * generation or version they were asked for; the store ignores stale ones.
 */
export function useSessionDetail() {
  const bridge = useBridge()
  const live = useConnectionStore(selectIndicator) === "live"
  const sessionID = useSessionDetailStore(selectDetailSessionId)
  const status = useSessionDetailStore(selectDetailStatus)
  const generation = useSessionDetailStore(selectDetailGeneration)
  const staleDecisions = useSessionDetailStore(selectStaleDecisions)

  const fetching = status === "loading" || status === "reloading"
  useEffect(() => {
    if (!live || sessionID === null || !fetching) return
    const store = useSessionDetailStore.getState()
    bridge.invoke("sessions.get", { sessionID }).then(
      (detail) => store.loaded(generation, detail),
      (error: unknown) => store.failed(generation, errorMessage(error)),
    )
  }, [bridge, live, sessionID, fetching, generation])

  useEffect(() => {
    if (!live || sessionID === null || staleDecisions === 0) return
    const store = useSessionDetailStore.getState()
    bridge.invoke("decisions.list", { sessionID, limit: 1000 }).then(
      (page) => store.decisionsLoaded(sessionID, staleDecisions, page.decisions),
      // The decisions shown stay; the next permission event of the session asks again.
      () => undefined,
    )
  }, [bridge, live, sessionID, staleDecisions])
}
