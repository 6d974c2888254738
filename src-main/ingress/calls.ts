import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Cause, Deferred, Effect, Exit } from "effect"
import type { SessionId } from "@contract/ids"
import type { PermissionRule } from "@contract/model"
import type { Locations } from "@core/location/Locations"
import { Runner } from "@core/session/Runner"
import { ToolCalls } from "@core/session/ToolCalls"
import { declinedText, errorResult, STOPPED_TEXT, toCallToolResult } from "./results"

// One `tools/call`, settled through the Location's registry like the runner settles a model's
// call: recorded `running` before the tool executes and finished exactly once, whatever ends it
// (its result, a decline, the client cancelling or going away, a stop from the UI).

/** Why a call ended before its tool did. */
export type CancelReason = "cancelled" | "disconnected" | "stopped"

/** What one call needs to know about its session. */
export interface CallContext {
  readonly sessionID: SessionId
  readonly agent: string
  /** The `tool_call.message_id` of every call of this MCP session. */
  readonly messageID: string
  readonly handle: Locations.Handle
  readonly rules: ReadonlyArray<PermissionRule>
}

export interface CallInput {
  /** The MCP request id, as text. */
  readonly callID: string
  readonly name: string
  readonly input: unknown
  /** Completed (once) to end the call early; the tool's fiber is interrupted, withdrawing its asks. */
  readonly cancel: Deferred.Deferred<CancelReason>
}

/** How a call ended, for the session's status. */
export type Ending =
  | { readonly _tag: "result"; readonly result: CallToolResult }
  | { readonly _tag: "declined"; readonly result: CallToolResult; readonly reason: string }

/** The result a call ended early gets (the client sees it only after a stop: a cancel is not answered). */
const cancelledText = (reason: CancelReason) => (reason === "stopped" ? STOPPED_TEXT : ToolCalls.INTERRUPTED)

/**
 * Records, settles and finishes one call. Never fails: every ending is a result. The catalog is
 * materialized for this call, so a tool that was removed or wholly denied since `tools/list`
 * answers `Unknown tool`, and one replaced meanwhile answers as stale.
 */
export const settleCall = (calls: ToolCalls.Interface, context: CallContext, input: CallInput): Effect.Effect<Ending> =>
  Effect.gen(function* () {
    const key = { sessionID: context.sessionID, messageID: context.messageID, callID: input.callID }
    const started = yield* Effect.result(calls.start({ ...key, tool: input.name, input: input.input }))
    if (started._tag === "Failure") return { _tag: "result", result: errorResult(started.failure.message) } as const
    const finish = (outcome: ToolCalls.Outcome) => calls.finish(key, outcome)

    const catalog = yield* context.handle.registry.materialize(context.rules)
    const settled = Effect.exit(
      catalog.settle({
        sessionID: context.sessionID,
        agent: context.agent,
        assistantMessageID: context.messageID,
        call: { id: input.callID, name: input.name, input: input.input },
      }),
    ).pipe(Effect.map((exit) => ({ _tag: "settled" as const, exit })))
    const cancelled = Deferred.await(input.cancel).pipe(
      Effect.map((reason) => ({ _tag: "cancelled" as const, reason })),
    )

    // The loser is interrupted and awaited before the race returns: a cancelled call's ask is
    // withdrawn (and gone from the inbox) before its row is finished.
    const outcome = yield* Effect.raceFirst(settled, cancelled).pipe(
      // Shutting down interrupts this fiber itself: the row must not stay `running`.
      Effect.onInterrupt(() =>
        finish({ result: { type: "error", value: ToolCalls.INTERRUPTED }, interrupted: true }).pipe(Effect.asVoid),
      ),
    )

    if (outcome._tag === "cancelled") {
      const text = cancelledText(outcome.reason)
      yield* finish({ result: { type: "error", value: text }, interrupted: true })
      return { _tag: "result", result: errorResult(text) } as const
    }
    if (Exit.isSuccess(outcome.exit)) {
      yield* finish(outcome.exit.value)
      return { _tag: "result", result: toCallToolResult(outcome.exit.value) } as const
    }
    const cause = outcome.exit.cause
    const decline = Runner.declineIn(cause)
    if (decline) {
      const text = declinedText(decline.message)
      yield* finish({ result: { type: "error", value: text } })
      return { _tag: "declined", result: errorResult(text), reason: decline.message } as const
    }
    const text = Cause.hasInterruptsOnly(cause)
      ? ToolCalls.INTERRUPTED
      : Runner.executionFailed(Runner.failureMessage(cause))
    if (!Cause.hasInterruptsOnly(cause)) yield* Effect.logError(`MCP tool call ${input.name} failed`, cause)
    yield* finish({ result: { type: "error", value: text }, interrupted: Cause.hasInterruptsOnly(cause) })
    return { _tag: "result", result: errorResult(text) } as const
  })
