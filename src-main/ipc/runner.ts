import { Effect } from "effect"
import { SessionNotFoundError, SessionStartError } from "@contract/methods"
import { Runner } from "@core/session/Runner"
import { SessionControl } from "@core/session/SessionControl"
import type { Handlers } from "./ContractServer"

// Starting and stopping the sessions Gatehouse runs itself (the built-in runner). The CLI's
// `gatehouse run` and the demo reach the runner through `sessions.start` like the UI does.

/** The services the runner handlers use. */
export type RunnerServices = Runner.Service | SessionControl.Service

type RunnerMethod = "sessions.start" | "sessions.stop"

export const runnerHandlers: Pick<Handlers<RunnerServices>, RunnerMethod> = {
  "sessions.start": (input) =>
    Effect.gen(function* () {
      const runner = yield* Runner.Service
      return yield* runner
        .start({
          directory: input.project,
          agent: input.agent,
          title: input.title,
          provider: input.provider,
          prompt: input.prompt,
        })
        .pipe(Effect.mapError((error) => new SessionStartError({ reason: error.message })))
    }),
  "sessions.stop": (input) =>
    Effect.gen(function* () {
      // Whoever runs the session stops it: the built-in runner or MCP ingress.
      const control = yield* SessionControl.Service
      yield* control
        .stop(input.sessionID)
        .pipe(Effect.mapError((error) => new SessionNotFoundError({ sessionID: error.sessionID })))
      return null
    }),
}
