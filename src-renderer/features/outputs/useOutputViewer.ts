import { useEffect } from "react"
import { useBridge } from "../../bridge/BridgeContext"
import { selectIndicator, useConnectionStore } from "../../state/connectionStore"
import { MATCH_BATCH, PAGE_LINES, useOutputViewerStore } from "../../state/outputViewerStore"
import { errorMessage } from "../../lib/errors"

/**
 * Fetches what the viewer store asks for: the page at its offset, and the next batch of matching
 * line numbers. Each answer is tagged with the request it answers; the store drops stale ones.
 */
export function useOutputViewer() {
  const bridge = useBridge()
  const live = useConnectionStore(selectIndicator) === "live"
  const id = useOutputViewerStore((state) => state.outputId)
  const loading = useOutputViewerStore((state) => state.loading)
  const request = useOutputViewerStore((state) => state.request)
  const searching = useOutputViewerStore((state) => state.search.loading)
  const searchRequest = useOutputViewerStore((state) => state.search.request)

  useEffect(() => {
    if (!live || id === null || !loading) return
    const store = useOutputViewerStore.getState()
    const offset = store.offset
    bridge.invoke("outputs.read", { id, offset, limit: PAGE_LINES }).then(
      (page) => store.pageLoaded(request, { offset, lines: page.lines, nextOffset: page.nextOffset }),
      (error: unknown) => store.pageFailed(request, errorMessage(error)),
    )
  }, [bridge, live, id, loading, request])

  useEffect(() => {
    if (!live || id === null || !searching) return
    const store = useOutputViewerStore.getState()
    const { query, scanFrom } = store.search
    bridge.invoke("outputs.read", { id, search: query, offset: scanFrom ?? 0, limit: MATCH_BATCH }).then(
      (page) =>
        store.matchesLoaded(
          searchRequest,
          page.lines.map((line) => line.number),
          page.nextOffset,
        ),
      (error: unknown) => store.matchesFailed(searchRequest, errorMessage(error)),
    )
  }, [bridge, live, id, searching, searchRequest])
}
