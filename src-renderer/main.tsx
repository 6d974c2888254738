import { StrictMode } from "react"
import { createRoot } from "react-dom/client"
import { App } from "./App"
import { createBridge } from "./bridge/Bridge"
import { BridgeProvider } from "./bridge/BridgeContext"
import { connectEvents } from "./state/connectEvents"
import "./styles.css"

// Created before the first render: reading the token also removes it from the address bar.
const bridge = createBridge()
connectEvents(bridge)

const root = document.getElementById("root")
if (!root) throw new Error("index.html has no #root element")
createRoot(root).render(
  <StrictMode>
    <BridgeProvider bridge={bridge}>
      <App />
    </BridgeProvider>
  </StrictMode>,
)
