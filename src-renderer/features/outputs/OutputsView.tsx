import { selectViewerOutputId, useOutputViewerStore } from "../../state/outputViewerStore"
import { ViewFrame } from "../shell/ViewFrame"
import { OutputsTable } from "./OutputsTable"
import { OutputViewer } from "./OutputViewer"
import "../shell/controls.css"
import "./outputs.css"

/** Tool outputs too large for the model's preview, kept for a week; or one of them, page by page. */
export function OutputsView() {
  const open = useOutputViewerStore(selectViewerOutputId)
  return (
    <ViewFrame id="outputs" title="Outputs">
      {open === null ? <OutputsTable /> : <OutputViewer key={open} id={open} />}
    </ViewFrame>
  )
}
