import { EmptyState } from "../shell/EmptyState"
import { ViewFrame } from "../shell/ViewFrame"

/** Tool outputs too large for the model's preview, kept for a week. */
export function OutputsView() {
  return (
    <ViewFrame id="outputs" title="Outputs">
      <EmptyState title="No kept outputs">
        Tool outputs over 2000 lines or 50 KB are saved in full for 7 days. The model sees a preview; you can read the
        whole output here.
      </EmptyState>
    </ViewFrame>
  )
}
