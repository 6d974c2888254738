import { Cause, Context, Deferred, Effect, Exit, Fiber, Layer, Schema, type Scope } from "effect"
import type { SessionId } from "@contract/ids"
import type { Session, SessionStatus } from "@contract/model"
import { Config } from "../config/Config"
import { ascendingBody, newId } from "../id/Identifier"
import { Locations } from "../location/Locations"
import { denyEverything } from "../permission/evaluate"
import { PermissionV2 } from "../permission/PermissionV2"
import type { ToolOutputStore } from "../output/ToolOutputStore"
import type { Tool } from "../tool/Tool"
import type { ToolRegistry } from "../tool/ToolRegistry"
import { Agents } from "./Agents"
import { Projects } from "./Projects"
import { Provider } from "./provider/Provider"
import { Providers } from "./provider/Providers"
import { Questions } from "./Questions"
import { Sessions } from "./Sessions"
import { ToolCalls } from "./ToolCalls"

export * as Runner from "./Runner"

/** Provider turns an agent gets when its definition sets no `steps`. */
export const DEFAULT_MAX_STEPS = 50

/** The result of every call made on the agent's last step (SPEC-CORE A.5). */
export const STEPS_EXHAUSTED = "Tools are disabled after the maximum agent steps"

/** The result of unsettled calls when a tool fiber failed for another reason than a decline. */
export const executionFailed = (message: string) => `Tool execution failed: ${message}`

/** Why a session stopped when the process shut down around it. */
export const SHUT_DOWN = "Gatehouse shut down"

/** The agent named for a session does not exist (built-in or configured). */
export class UnknownAgentError extends Schema.TaggedError<UnknownAgentError>()("Runner.UnknownAgentError", {
  agent: Schema.String,
}) {
  override get message() {
    return `Unknown agent: ${this.agent}`
  }
}

/**
 * The model driving a session, as a person or a client names it: a script, a provider configured
 * under `providers` (`name`), or an OpenAI-compatible endpoint given inline.
 */
export type ProviderChoice =
  | { readonly type: "scripted"; readonly script: string }
  | {
      readonly type: "openai-compatible"
      /** A provider configured under `providers` in config.jsonc (of any type). */
      readonly name?: string | undefined
      readonly base_url?: string | undefined
      readonly model?: string | undefined
      /** Read from Gatehouse's own environment when the session starts. */
      readonly api_key_env?: string | undefined
      readonly api_key?: string | undefined
      readonly stream?: boolean | undefined
    }

export interface StartInput {
  /** The project directory (absolute); its project is created on first use. */
  readonly directory: string
  /** Default `build`. */
  readonly agent?: string | undefined
  /** Default: the prompt's first line, shortened. */
  readonly title?: string | undefined
  /** A provider, or how to make one (see {@link ProviderChoice}). */
  readonly provider: Provider.Interface | ProviderChoice
  /** The person's request: the first user message (none when empty). */
  readonly prompt?: string | undefined
  /** Replaces the default system message. */
  readonly system?: string | undefined
}

export type StartError = Projects.InvalidDirectoryError | UnknownAgentError | Provider.ConfigError

/**
 * The built-in runner (SPEC-CORE A.5): sessions whose model is a provider inside Gatehouse. Each
 * session runs its loop in its own fiber: at every provider turn it acquires the project's
 * Location, materializes the agent's tools, sends the conversation, records and settles each tool
 * call in its own fiber, and feeds the results back, until the model answers without tool calls
 * (idle), a person declines (declined), the provider or storage fails (failed), the agent's steps
 * run out (idle, with the reason), or someone stops it (stopped). Conversations live in memory
 * for as long as their session runs.
 */
export interface Interface {
  /** Creates a `running` session with source `runner` and starts its loop; returns at once. */
  readonly start: (input: StartInput) => Effect.Effect<Session, StartError>
  /**
   * Interrupts a running session (its pending asks are withdrawn, its unsettled calls fail with
   * `Tool execution interrupted`) and returns once it is `stopped`. A session that is not running
   * here is left as it is.
   */
  readonly stop: (sessionID: SessionId) => Effect.Effect<void, Sessions.NotFoundError>
  /** Waits until the session's loop has ended and returns the session as it ended. */
  readonly wait: (sessionID: SessionId) => Effect.Effect<Session, Sessions.NotFoundError>
  /** The sessions whose loop runs in this process. */
  readonly runningUnsafe: () => ReadonlyArray<SessionId>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/session/Runner") {}

/** How a loop ended. */
interface End {
  readonly status: SessionStatus
  readonly reason?: string | undefined
}

type TurnResult = { readonly _tag: "continue" } | ({ readonly _tag: "end" } & End)

const end = (status: SessionStatus, reason?: string): TurnResult => ({ _tag: "end", status, reason })

/** The defect a person's "no" travels as (SPEC-CORE D.5, E.12), if the cause holds one. */
export function declineIn(cause: Cause.Cause<unknown>): Error | undefined {
  for (const reason of cause.reasons)
    if (
      Cause.isDieReason(reason) &&
      (reason.defect instanceof PermissionV2.DeclinedError || reason.defect instanceof Questions.RejectedError)
    )
      return reason.defect
  return undefined
}

/** A short readable text for what failed a tool fiber: its error's message, else the first defect. */
export function failureMessage(cause: Cause.Cause<unknown>): string {
  for (const reason of cause.reasons) {
    if (Cause.isFailReason(reason)) return messageOf(reason.error)
    if (Cause.isDieReason(reason)) return messageOf(reason.defect)
  }
  return "interrupted"
}

function messageOf(value: unknown): string {
  if (value instanceof Error) return value.message || value.name
  if (typeof value === "object" && value !== null && "message" in value && typeof value.message === "string")
    return value.message
  return String(value)
}

const titleOf = (prompt: string) => {
  const line = prompt.trim().split("\n", 1)[0]?.trim() ?? ""
  if (line === "") return "Runner session"
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}

const defaultSystem = (agent: Agents.Agent, directory: string) =>
  [
    `You are the "${agent.name}" agent, working in the project directory ${directory}.`,
    agent.description,
    "Use the tools to look at and change the project; paths are relative to that directory.",
  ]
    .filter((line) => line !== "")
    .join(" ")

const isProvider = (value: Provider.Interface | ProviderChoice): value is Provider.Interface => "turn" in value

export interface Options {
  /** Where `api_key_env` is read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>
}

/**
 * The provider a choice describes. A relative script path resolves against the project directory;
 * `name` picks a provider configured under `providers`, and excludes the inline settings.
 */
export const providerFor = (
  choice: ProviderChoice,
  config: Config.GatehouseConfig,
  directory: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Effect.Effect<Provider.Interface, Provider.ConfigError> => {
  if (choice.type === "scripted") return Providers.make({ type: "scripted", script: choice.script }, { directory })
  const inline = {
    ...(choice.base_url !== undefined ? { base_url: choice.base_url } : {}),
    ...(choice.model !== undefined ? { model: choice.model } : {}),
    ...(choice.api_key_env !== undefined ? { api_key_env: choice.api_key_env } : {}),
    ...(choice.api_key !== undefined ? { api_key: choice.api_key } : {}),
    ...(choice.stream !== undefined ? { stream: choice.stream } : {}),
  }
  if (choice.name !== undefined) {
    if (Object.keys(inline).length > 0)
      return Effect.fail(
        new Provider.ConfigError({
          provider: choice.name,
          reason: "name a configured provider or give base_url and model, not both",
        }),
      )
    return Providers.named(config, choice.name, { env, directory })
  }
  return Providers.make({ type: "openai-compatible", ...inline }, { env })
}

export const layer = (options: Options = {}) =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const projects = yield* Projects.Service
      const sessions = yield* Sessions.Service
      const agents = yield* Agents.Service
      const locations = yield* Locations.Service
      const calls = yield* ToolCalls.Service
      const config = yield* Config.Service
      const scope = yield* Effect.scope

      interface Running {
        /** Set right after the fork, before `start` returns. */
        fiber: Fiber.Fiber<void> | undefined
        readonly done: Deferred.Deferred<Session>
        stopRequested: boolean
      }
      const running = new Map<SessionId, Running>()

      /** One provider turn and the settlement of its calls, inside the turn's hold on the Location. */
      const turn = (
        session: Session,
        messages: Array<Provider.Message>,
        provider: Provider.Interface,
        last: boolean,
      ): Effect.Effect<TurnResult, never, Scope.Scope> =>
        Effect.gen(function* () {
          const handle = yield* locations.acquire(session.projectId).pipe(Effect.orDie)
          const rules = agents.get(session.agent, handle.project.directory)?.rules ?? denyEverything
          // On the last step nothing is advertised; calls the model makes anyway are refused below.
          const catalog = last ? undefined : yield* handle.registry.materialize(rules)
          const answer = yield* Effect.result(
            provider.turn({ messages, tools: catalog?.definitions ?? [], toolChoice: last ? "none" : "auto" }),
          )
          if (answer._tag === "Failure") return end("failed", answer.failure.message)
          const reply = answer.success
          const messageID = `msg_${ascendingBody()}`
          const toolCalls = uniqueIds(reply.toolCalls)
          messages.push({ role: "assistant", text: reply.text, toolCalls })
          if (toolCalls.length === 0) return end("idle")

          // Every call is recorded `running` before any of them executes (SPEC-CORE A.5).
          for (const call of toolCalls)
            yield* calls
              .start({ sessionID: session.id, messageID, callID: call.id, tool: call.name, input: call.input })
              .pipe(Effect.orDie)

          const results = new Map<string, Tool.ResultValue>()
          const answerCall = (call: Provider.ToolCall, outcome: ToolCalls.Outcome) => {
            if (results.has(call.id)) return
            calls.finishUnsafe({ sessionID: session.id, messageID, callID: call.id }, outcome)
            results.set(call.id, outcome.result)
          }
          const answerUnsettled = (message: string, interrupted: boolean) => {
            for (const call of toolCalls) answerCall(call, { result: { type: "error", value: message }, interrupted })
          }

          const settle = (
            materialized: ToolRegistry.Materialization,
            call: Provider.ToolCall,
          ): Effect.Effect<void, ToolOutputStore.StorageError> =>
            Effect.uninterruptibleMask((restore) =>
              restore(
                materialized.settle({
                  sessionID: session.id,
                  agent: session.agent,
                  assistantMessageID: messageID,
                  call: { id: call.id, name: call.name, input: call.input },
                }),
              ).pipe(Effect.flatMap((settlement) => Effect.sync(() => answerCall(call, settlement)))),
            )

          const open: Array<Provider.ToolCall> = []
          for (const call of toolCalls) {
            if (last || catalog === undefined) answerCall(call, { result: { type: "error", value: STEPS_EXHAUSTED } })
            else if (call.inputError !== undefined)
              answerCall(call, { result: { type: "error", value: `Invalid tool input: ${call.inputError}` } })
            else open.push(call)
          }

          if (open.length > 0 && catalog !== undefined) {
            const exit = yield* Effect.exit(
              Effect.forEach(open, (call) => settle(catalog, call), { concurrency: "unbounded", discard: true }),
            ).pipe(
              // Stopping (or shutting down) interrupts this fiber: the calls still open end here.
              Effect.onInterrupt(() => Effect.sync(() => answerUnsettled(ToolCalls.INTERRUPTED, true))),
            )
            if (Exit.isFailure(exit)) {
              if (Cause.hasInterruptsOnly(exit.cause)) {
                answerUnsettled(ToolCalls.INTERRUPTED, true)
                return yield* Effect.interrupt
              }
              const decline = declineIn(exit.cause)
              if (decline) {
                answerUnsettled(ToolCalls.INTERRUPTED, true)
                return end("declined", decline.message)
              }
              const message = executionFailed(failureMessage(exit.cause))
              answerUnsettled(message, false)
              return end("failed", message)
            }
          }

          for (const call of toolCalls)
            messages.push({ role: "tool", toolCallId: call.id, name: call.name, result: results.get(call.id)! })
          return last
            ? end("idle", `Stopped after the agent's maximum of ${stepsOf(session)} steps`)
            : { _tag: "continue" }
        })

      const stepsOf = (session: Session) => agents.get(session.agent)?.steps ?? DEFAULT_MAX_STEPS

      const loop = (session: Session, provider: Provider.Interface, messages: Array<Provider.Message>) =>
        Effect.gen(function* () {
          const maxSteps = stepsOf(session)
          for (let step = 1; ; step++) {
            const result = yield* Effect.scoped(turn(session, messages, provider, step >= maxSteps))
            if (result._tag === "end") return { status: result.status, reason: result.reason } satisfies End
          }
        })

      const finish = (sessionID: SessionId, entry: Running, exit: Exit.Exit<End>) => {
        const ended: End = Exit.isSuccess(exit)
          ? exit.value
          : Cause.hasInterruptsOnly(exit.cause)
            ? entry.stopRequested
              ? { status: "stopped" }
              : { status: "stopped", reason: SHUT_DOWN }
            : { status: "failed", reason: `Internal error: ${failureMessage(exit.cause)}` }
        return sessions
          .setStatus(sessionID, ended.status, ended.reason !== undefined ? { reason: ended.reason } : {})
          .pipe(
            Effect.catchTag("Sessions.NotFoundError", () => Effect.void),
            Effect.ensuring(
              Effect.suspend(() => {
                running.delete(sessionID)
                const found = sessions.findUnsafe(sessionID)
                return found ? Deferred.succeed(entry.done, found) : Effect.void
              }),
            ),
          )
      }

      const start = Effect.fn("Runner.start")(function* (input: StartInput) {
        const project = yield* projects.ensure(input.directory)
        const agentName = input.agent || Agents.DEFAULT_AGENT
        const agent = agents.get(agentName, project.directory)
        if (!agent) return yield* new UnknownAgentError({ agent: agentName })
        const provider = isProvider(input.provider)
          ? input.provider
          : yield* providerFor(input.provider, config.config, project.directory, options.env)
        const prompt = input.prompt ?? ""
        const messages: Array<Provider.Message> = [
          { role: "system", text: input.system ?? defaultSystem(agent, project.directory) },
          ...(prompt.trim() !== "" ? [{ role: "user" as const, text: prompt }] : []),
        ]
        return yield* Effect.uninterruptible(
          Effect.gen(function* () {
            const session = yield* sessions.create({
              projectId: project.id,
              agent: agent.name,
              title: input.title?.trim() || titleOf(prompt),
              source: "runner",
              status: "running",
              provider: provider.name,
            })
            // Registered before the fork: a loop that ends at once still finds (and removes) its entry.
            const entry: Running = { fiber: undefined, done: yield* Deferred.make<Session>(), stopRequested: false }
            running.set(session.id, entry)
            entry.fiber = yield* loop(session, provider, messages).pipe(
              Effect.onExit((exit) => finish(session.id, entry, exit)),
              Effect.asVoid,
              Effect.forkIn(scope),
            )
            return session
          }),
        )
      })

      const stop = Effect.fn("Runner.stop")(function* (sessionID: SessionId) {
        const entry = running.get(sessionID)
        if (!entry) {
          yield* sessions.get(sessionID)
          return
        }
        entry.stopRequested = true
        if (entry.fiber) yield* Fiber.interrupt(entry.fiber)
        yield* Deferred.await(entry.done)
      })

      const wait = Effect.fn("Runner.wait")(function* (sessionID: SessionId) {
        const entry = running.get(sessionID)
        if (entry) return yield* Deferred.await(entry.done)
        return yield* sessions.get(sessionID)
      })

      return Service.of({ start, stop, wait, runningUnsafe: () => [...running.keys()] })
    }),
  )

/**
 * The calls of one assistant message with unique ids: a server that repeats an id gets a fresh one
 * for the repeat, so every call has exactly one result and one `tool_call` row.
 */
function uniqueIds(calls: ReadonlyArray<Provider.ToolCall>): ReadonlyArray<Provider.ToolCall> {
  const seen = new Set<string>()
  return calls.map((call) => {
    if (!seen.has(call.id)) {
      seen.add(call.id)
      return call
    }
    const id = newId.toolCall() as string
    seen.add(id)
    return { ...call, id }
  })
}
