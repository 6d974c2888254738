import { formatAge } from "../../lib/time"
import { useNow } from "./useNow"

/**
 * How long ago `since` was, kept current every second. Only this text re-renders on each tick,
 * not the card or header around it.
 */
export function Age({ since }: { readonly since: number }) {
  const now = useNow()
  return <>{formatAge(now - since)}</>
}
