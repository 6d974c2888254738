import { Context, Deferred, Effect, Exit, Layer, Schema } from "effect"
import type { PermissionRequestId, SavedApprovalId, SessionId } from "@contract/ids"
import {
  PermissionRule,
  type PermissionEffect,
  type PermissionReply,
  type PermissionRequest,
  type PermissionSource,
} from "@contract/model"
import { EventBus } from "../events/EventBus"
import { newId } from "../id/Identifier"
import { Location } from "../location/Location"
import { Agents } from "../session/Agents"
import { Sessions } from "../session/Sessions"
import { Store } from "../store/Store"
import { DecisionLog } from "./DecisionLog"
import { denyEverything, evaluateInput, relevant, type Ruleset } from "./evaluate"
import { commit, type Outbox } from "./outbox"
import { SavedApprovals } from "./SavedApprovals"

export * as PermissionV2 from "./PermissionV2"

export type ID = PermissionRequestId
export type Request = PermissionRequest
export type Reply = PermissionReply

/** What a tool asks (SPEC-CORE D.1): `AssertInput` = optional id + request fields + optional agent. */
export interface AssertInput {
  readonly id?: PermissionRequestId
  readonly sessionID: SessionId
  readonly action: string
  readonly resources: ReadonlyArray<string>
  readonly save?: ReadonlyArray<string>
  readonly metadata?: Readonly<Record<string, unknown>>
  readonly source?: PermissionSource
  /** Overrides the session's agent for this request. */
  readonly agent?: string
}

export interface AskResult {
  readonly id: PermissionRequestId
  readonly effect: PermissionEffect
}

export interface ReplyInput {
  readonly requestID: PermissionRequestId
  readonly reply: PermissionReply
  /** With `reject`: feedback the model reads (the call fails with {@link CorrectedError}). */
  readonly message?: string
}

/** A configured rule denies the call; `rules` are the evaluated rules whose action matches. */
export class BlockedError extends Schema.TaggedError<BlockedError>()("PermissionV2.BlockedError", {
  rules: Schema.Array(PermissionRule),
  action: Schema.String,
  resources: Schema.Array(Schema.String),
}) {
  override get message() {
    return `Permission denied: ${this.action}`
  }
}

/** The person rejected the call and told the model why; the model sees the feedback and goes on. */
export class CorrectedError extends Schema.TaggedError<CorrectedError>()("PermissionV2.CorrectedError", {
  feedback: Schema.String,
}) {
  override get message() {
    return `The user rejected permission to use this specific tool call with the following feedback: ${this.feedback}`
  }
}

/** The person rejected the call without feedback (or the Location closed): the session stops. */
export class DeclinedError extends Schema.TaggedError<DeclinedError>()("PermissionV2.DeclinedError", {}) {
  override get message() {
    return "The user rejected permission to use this specific tool call."
  }
}

export class NotFoundError extends Schema.TaggedError<NotFoundError>()("PermissionV2.NotFoundError", {
  requestID: Schema.String,
}) {
  override get message() {
    return `Permission request not found: ${this.requestID}`
  }
}

/**
 * The permission engine of one Location (SPEC-CORE D.4–D.9). Configured rules come from the
 * session's agent, saved approvals from the Location's project; every ask is written to the
 * decision log when created and when it ends, and every change is published on the EventBus.
 */
export interface Interface {
  /** Evaluates; on `ask` registers a pending request without waiting. Never blocks. */
  readonly ask: (input: AssertInput) => Effect.Effect<AskResult, Sessions.NotFoundError>
  /**
   * Evaluates and, on `ask`, waits for the answer. Fails with {@link BlockedError} on a configured
   * deny and {@link CorrectedError} on a reject with feedback; a reject without feedback (or the
   * Location closing) is a {@link DeclinedError} DEFECT. Only the wait is interruptible;
   * interrupting it withdraws the ask.
   */
  readonly assert: (input: AssertInput) => Effect.Effect<void, BlockedError | CorrectedError | Sessions.NotFoundError>
  /** Answers a pending ask (uninterruptible); see D.7 for cascades and auto-approval. */
  readonly reply: (input: ReplyInput) => Effect.Effect<void, NotFoundError>
  /** Pending requests, oldest first. */
  readonly list: () => Effect.Effect<ReadonlyArray<Request>>
  /** The same, synchronously, for snapshots (EventBus consistency rule). */
  readonly listUnsafe: () => ReadonlyArray<Request>
  /** The pending requests of one session, oldest first. */
  readonly forSession: (sessionID: SessionId) => Effect.Effect<ReadonlyArray<Request>>
  /** A pending request, or `undefined` once it has ended (or never existed here). */
  readonly get: (id: PermissionRequestId) => Effect.Effect<Request | undefined>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/permission/PermissionV2") {}

interface Pending {
  readonly request: Request
  /** The explicit agent of the request, if any (kept out of the published request). */
  readonly agent: string | undefined
  readonly deferred: Deferred.Deferred<void, CorrectedError | DeclinedError>
}

type Admission =
  | { readonly _tag: "closed"; readonly id: PermissionRequestId }
  | { readonly _tag: "missing" }
  | { readonly _tag: "blocked"; readonly id: PermissionRequestId; readonly rules: Ruleset }
  | { readonly _tag: "allowed"; readonly id: PermissionRequestId }
  | { readonly _tag: "asked"; readonly entry: Pending }

const isSaved = (rule: object): rule is SavedApprovals.SavedRule => "approvalID" in rule

/** The saved approvals among the rules that decided a call, each once. */
const approvalIds = (rules: ReadonlyArray<object>): SavedApprovalId[] => [
  ...new Set(rules.filter(isSaved).map((rule) => rule.approvalID)),
]

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const location = yield* Location.Service
    const store = yield* Store.Service
    const bus = yield* EventBus.Service
    const sessions = yield* Sessions.Service
    const agents = yield* Agents.Service
    const saved = yield* SavedApprovals.Service
    const log = yield* DecisionLog.Service
    const pending = new Map<PermissionRequestId, Pending>()
    let closed = false

    /** The agent's rules for a session of this Location, or `undefined` if there is no such session. */
    const configuredFor = (sessionID: SessionId, agent: string | undefined) => {
      const session = sessions.findUnsafe(sessionID)
      if (!session || session.projectId !== location.projectId) return undefined
      const name = agent || session.agent || Agents.DEFAULT_AGENT
      return { agent: name, rules: agents.get(name, location.directory)?.rules ?? denyEverything }
    }

    const decide = (
      request: Pick<Request, "action" | "resources">,
      configured: Ruleset,
      savedRules: ReadonlyArray<SavedApprovals.SavedRule>,
    ) => evaluateInput({ action: request.action, resources: request.resources, configured, saved: savedRules })

    const requestOf = (id: PermissionRequestId, input: AssertInput): Request => ({
      id,
      sessionID: input.sessionID,
      action: input.action,
      resources: [...input.resources],
      ...(input.save !== undefined ? { save: [...input.save] } : {}),
      ...(input.metadata !== undefined ? { metadata: { ...input.metadata } } : {}),
      ...(input.source !== undefined ? { source: { ...input.source } } : {}),
    })

    // Evaluation and registration happen in one synchronous block, so an `always` answered
    // meanwhile can never miss a request that it would have auto-approved.
    const admit = (input: AssertInput): Admission => {
      const id = input.id ?? newId.permissionRequest()
      if (closed) return { _tag: "closed", id }
      return commit(
        store,
        bus,
        (outbox): Admission => {
          const configured = configuredFor(input.sessionID, input.agent)
          if (!configured) return { _tag: "missing" }
          const decision = decide(input, configured.rules, saved.rulesUnsafe(location.projectId))
          if (decision.effect === "deny")
            return { _tag: "blocked", id, rules: relevant(input.action, configured.rules) }
          const now = Date.now()
          if (decision.effect === "allow") {
            saved.recordHitsUnsafe(approvalIds(decision.decisive), now, outbox)
            return { _tag: "allowed", id }
          }
          if (pending.has(id)) throw new Error(`Duplicate pending permission ID: ${id}`)
          const request = requestOf(id, input)
          log.recordAskedUnsafe({ request, projectID: location.projectId, agent: configured.agent, now })
          outbox.push({ _tag: "permission.v2.asked", request })
          return { _tag: "asked", entry: { request, agent: input.agent, deferred: Deferred.makeUnsafe() } }
        },
        (admission) => {
          if (admission._tag === "asked") pending.set(admission.entry.request.id, admission.entry)
        },
      )
    }

    const replied = (entry: Pending, reply: PermissionReply) =>
      ({
        _tag: "permission.v2.replied",
        sessionID: entry.request.sessionID,
        requestID: entry.request.id,
        reply,
      }) as const

    /** Removes settled entries and completes their waiters, after the transaction committed. */
    const settle = (settled: ReadonlyArray<readonly [Pending, Exit.Exit<void, CorrectedError | DeclinedError>]>) => {
      for (const [entry, exit] of settled) {
        pending.delete(entry.request.id)
        Deferred.doneUnsafe(entry.deferred, exit)
      }
    }

    const withdraw = (entry: Pending, outbox: Outbox, now: number) => {
      log.recordDecidedUnsafe(entry.request.id, { status: "interrupted", decidedBy: "system" }, now)
      outbox.push({ _tag: "permission.v2.withdrawn", sessionID: entry.request.sessionID, requestID: entry.request.id })
    }

    const answer = (input: ReplyInput): boolean => {
      const existing = pending.get(input.requestID)
      if (!existing) return false
      const settled: Array<readonly [Pending, Exit.Exit<void, CorrectedError | DeclinedError>]> = []
      const declined = Exit.fail(new DeclinedError())
      commit(
        store,
        bus,
        (outbox) => {
          const now = Date.now()
          outbox.push(replied(existing, input.reply))
          if (input.reply === "reject") {
            const feedback = input.message ? input.message : undefined
            log.recordDecidedUnsafe(
              existing.request.id,
              feedback === undefined
                ? { status: "reject", decidedBy: "person" }
                : { status: "corrected", decidedBy: "person", feedback },
              now,
            )
            settled.push([existing, feedback === undefined ? declined : Exit.fail(new CorrectedError({ feedback }))])
            for (const other of pending.values()) {
              if (other === existing || other.request.sessionID !== existing.request.sessionID) continue
              outbox.push(replied(other, "reject"))
              log.recordDecidedUnsafe(other.request.id, { status: "cascade", decidedBy: "person" }, now)
              settled.push([other, declined])
            }
            return
          }
          log.recordDecidedUnsafe(existing.request.id, { status: input.reply, decidedBy: "person" }, now)
          settled.push([existing, Exit.void])
          const save = input.reply === "always" ? (existing.request.save ?? []) : []
          if (save.length === 0) return
          saved.addUnsafe(
            {
              projectID: location.projectId,
              action: existing.request.action,
              resources: save,
              requestID: existing.request.id,
            },
            now,
            outbox,
          )
          // Auto-approve every other pending ask of the project that the saved approvals now fully
          // allow, each judged by its own agent's rules; a gone session or a configured deny keeps it.
          const savedRules = saved.rulesUnsafe(location.projectId)
          for (const other of pending.values()) {
            if (other === existing) continue
            const configured = configuredFor(other.request.sessionID, other.agent)
            if (!configured) continue
            const decision = decide(other.request, configured.rules, savedRules)
            if (decision.effect !== "allow") continue
            const approvals = approvalIds(decision.decisive)
            outbox.push(replied(other, "always"))
            saved.recordHitsUnsafe(approvals, now, outbox)
            log.recordDecidedUnsafe(
              other.request.id,
              { status: "auto", decidedBy: "approval", approvalIDs: approvals },
              now,
            )
            settled.push([other, Exit.void])
          }
        },
        () => settle(settled),
      )
      return true
    }

    const ask = Effect.fn("PermissionV2.ask")(function* (input: AssertInput) {
      const admission = yield* Effect.sync(() => admit(input))
      switch (admission._tag) {
        case "missing":
          return yield* new Sessions.NotFoundError({ sessionID: input.sessionID })
        case "closed":
          return { id: admission.id, effect: "deny" as const }
        case "blocked":
          return { id: admission.id, effect: "deny" as const }
        case "allowed":
          return { id: admission.id, effect: "allow" as const }
        case "asked":
          return { id: admission.entry.request.id, effect: "ask" as const }
      }
    })

    const assert = Effect.fn("PermissionV2.assert")((input: AssertInput) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const admission = yield* Effect.sync(() => admit(input))
          switch (admission._tag) {
            case "missing":
              return yield* new Sessions.NotFoundError({ sessionID: input.sessionID })
            case "closed":
              return yield* Effect.die(new DeclinedError())
            case "blocked":
              return yield* new BlockedError({
                rules: admission.rules,
                action: input.action,
                resources: [...input.resources],
              })
            case "allowed":
              return
            case "asked": {
              const entry = admission.entry
              return yield* restore(Deferred.await(entry.deferred)).pipe(
                Effect.onInterrupt(() =>
                  Effect.sync(() => {
                    if (pending.get(entry.request.id) !== entry) return
                    commit(
                      store,
                      bus,
                      (outbox) => withdraw(entry, outbox, Date.now()),
                      () => pending.delete(entry.request.id),
                    )
                  }),
                ),
                // Deliberate defect tunnel: leaves wrap their work in blanket `mapError`s that turn
                // typed failures into model-visible tool output. A person's plain "no" must not
                // become that: it travels as a defect and the runner stops the session (SPEC-CORE
                // A.5). A reject WITH feedback (CorrectedError) stays typed so the model reads it.
                Effect.catchTag("PermissionV2.DeclinedError", (error) => Effect.die(error)),
              )
            }
          }
        }),
      ),
    )

    const reply = Effect.fn("PermissionV2.reply")(function* (input: ReplyInput) {
      const found = yield* Effect.sync(() => answer(input))
      if (!found) return yield* new NotFoundError({ requestID: input.requestID })
    })

    const listUnsafe = () => Array.from(pending.values(), (entry) => entry.request)

    // Tearing the Location down declines every waiter (their calls die with DeclinedError) and
    // records the asks as interrupted; later asks are denied.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        const entries = [...pending.values()]
        if (entries.length === 0) return
        commit(
          store,
          bus,
          (outbox) => {
            const now = Date.now()
            for (const entry of entries) withdraw(entry, outbox, now)
          },
          () => settle(entries.map((entry) => [entry, Exit.fail(new DeclinedError())] as const)),
        )
      }),
    )

    return Service.of({
      ask,
      assert,
      reply,
      list: () => Effect.sync(listUnsafe),
      listUnsafe,
      forSession: (sessionID) => Effect.sync(() => listUnsafe().filter((request) => request.sessionID === sessionID)),
      get: (id) => Effect.sync(() => pending.get(id)?.request),
    })
  }),
)
