import { Effect } from "effect"
import type { LocationMutation } from "@core/location/LocationMutation"
import type { PermissionV2 } from "@core/permission/PermissionV2"
import type { Tool } from "@core/tool/Tool"

// The permission steps every built-in tool takes, in the order of SPEC-CORE H.7: resolve the path
// (LocationMutation, by the caller), then `external_directory` when the target is outside, then the
// tool's own action — and only then read or change anything. Requests are always built from the
// invocation context (H.6): the session, the agent and the call they came from.

/** What a tool asks for, without the identity fields the context supplies. */
export interface Ask {
  readonly action: string
  readonly resources: ReadonlyArray<string>
  readonly save?: ReadonlyArray<string>
  readonly metadata?: Readonly<Record<string, unknown>>
}

/** The full request for an ask made on behalf of one invocation. */
export function request(context: Tool.Context, ask: Ask): PermissionV2.AssertInput {
  return {
    sessionID: context.sessionID,
    agent: context.agent,
    source: { type: "tool", messageID: context.assistantMessageID, callID: context.toolCallID },
    action: ask.action,
    resources: ask.resources,
    ...(ask.save ? { save: ask.save } : {}),
    ...(ask.metadata ? { metadata: ask.metadata } : {}),
  }
}

/** Asserts the tool's own action (blocking until answered when a rule says `ask`). */
export const assertAction = (permission: PermissionV2.Interface, context: Tool.Context, ask: Ask) =>
  permission.assert(request(context, ask))

/** Asserts `external_directory` for a target outside the Location; nothing to do for one inside. */
export const assertExternal = (
  permission: PermissionV2.Interface,
  context: Tool.Context,
  target: LocationMutation.Target,
  metadata?: Readonly<Record<string, unknown>>,
) =>
  target.externalDirectory
    ? permission.assert(
        request(context, {
          action: "external_directory",
          resources: [target.externalDirectory.resource],
          save: [target.externalDirectory.save],
          metadata: { directory: target.externalDirectory.directory, ...metadata },
        }),
      )
    : Effect.void
