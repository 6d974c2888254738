import { createContext, useContext, type ReactNode } from "react"
import type { Bridge } from "./Bridge"

const BridgeContext = createContext<Bridge | null>(null)

/** Makes the bridge available to components that call the main process (actions, not state). */
export function BridgeProvider({ bridge, children }: { readonly bridge: Bridge; readonly children: ReactNode }) {
  return <BridgeContext.Provider value={bridge}>{children}</BridgeContext.Provider>
}

/** The bridge for calls like `bridge.invoke("permission.reply", …)`; state comes from the stores. */
export function useBridge(): Bridge {
  const bridge = useContext(BridgeContext)
  if (!bridge) throw new Error("useBridge() needs a <BridgeProvider> above it")
  return bridge
}
