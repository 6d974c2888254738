import { Context, Effect, Layer, Schema, type Scope } from "effect"
import type { PermissionRequestId, ProjectId, SessionId } from "@contract/ids"
import type { PermissionRequest } from "@contract/model"
import { PermissionV2 } from "./PermissionV2"

export * as AskSources from "./AskSources"

/** A pending ask and the project it belongs to, whichever source holds it. */
export interface Pending {
  readonly request: PermissionRequest
  readonly projectID: ProjectId
}

/** The ask is held by a connected agent server that could not be told the answer; it stays pending. */
export class ForwardError extends Schema.TaggedError<ForwardError>()("AskSources.ForwardError", {
  requestID: Schema.String,
  reason: Schema.String,
}) {
  override get message() {
    return `The answer could not be delivered: ${this.reason}`
  }
}

/**
 * Something that holds pending asks and takes their answers: the live Locations (Gatehouse's own
 * tools) or a connection to an agent server (OpenCode). Every source publishes its asks as
 * `permission.v2.asked|replied|withdrawn` with Gatehouse request ids, so the inbox needs no case
 * per source.
 */
export interface Source {
  /** Its pending asks (synchronous, for snapshots: EventBus consistency rule). */
  readonly pendingUnsafe: () => ReadonlyArray<Pending>
  /** True while it holds this ask. */
  readonly holdsUnsafe: (requestID: PermissionRequestId) => boolean
  /** Answers an ask it holds (a reject cascades through the ask's session, as everywhere). */
  readonly reply: (input: PermissionV2.ReplyInput) => Effect.Effect<void, PermissionV2.NotFoundError | ForwardError>
}

/**
 * The process-level registry of ask sources: what the inbox lists (snapshot) and where an answer
 * goes, by the request id the person was shown. A source registers for the lifetime of a scope.
 */
export interface Interface {
  /** Adds a source for the lifetime of the scope. */
  readonly register: (source: Source) => Effect.Effect<void, never, Scope.Scope>
  /** Every pending ask of every source, oldest first (synchronous, for snapshots). */
  readonly pendingUnsafe: () => ReadonlyArray<Pending>
  /** The pending asks of one session, oldest first. */
  readonly forSessionUnsafe: (sessionID: SessionId) => ReadonlyArray<PermissionRequest>
  /** Answers a pending ask in whichever source holds it. */
  readonly reply: (input: PermissionV2.ReplyInput) => Effect.Effect<void, PermissionV2.NotFoundError | ForwardError>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/permission/AskSources") {}

const byRequestId = (a: Pending, b: Pending) => (a.request.id < b.request.id ? -1 : a.request.id > b.request.id ? 1 : 0)

export const layer = Layer.sync(Service, () => {
  const sources = new Set<Source>()

  const pendingUnsafe = () => [...sources].flatMap((source) => source.pendingUnsafe()).sort(byRequestId)

  const reply = Effect.fn("AskSources.reply")(function* (input: PermissionV2.ReplyInput) {
    const holder = [...sources].find((source) => source.holdsUnsafe(input.requestID))
    if (!holder) return yield* new PermissionV2.NotFoundError({ requestID: input.requestID })
    return yield* holder.reply(input)
  })

  return Service.of({
    register: (source) =>
      Effect.acquireRelease(
        Effect.sync(() => void sources.add(source)),
        () => Effect.sync(() => void sources.delete(source)),
      ),
    pendingUnsafe,
    forSessionUnsafe: (sessionID) =>
      pendingUnsafe()
        .filter((pending) => pending.request.sessionID === sessionID)
        .map((pending) => pending.request),
    reply,
  })
})
