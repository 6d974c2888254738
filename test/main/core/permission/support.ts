import { mkdirSync } from "node:fs"
import { Effect, Layer } from "effect"
import type { AppEvent } from "@contract/events"
import type { PermissionRule } from "@contract/model"
import type { Config } from "@core/config/Config"
import { EventBus } from "@core/events/EventBus"
import { Location } from "@core/location/Location"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Agents } from "@core/session/Agents"
import { Sessions } from "@core/session/Sessions"
import { coreTestLayer } from "../../../support/layers"
import { makeTempDir } from "../../../support/temp"

export const rule = (action: string, resource: string, effect: PermissionRule["effect"]): PermissionRule => ({
  action,
  resource,
  effect,
})

export interface PermissionTestOptions {
  readonly config?: Config.GatehouseConfig
  /** Replaces the built-in and configured agents. */
  readonly agents?: ReadonlyArray<Agents.Agent>
  readonly database?: string
  /** Location directory; a fresh temp directory by default. */
  readonly directory?: string
}

/** Real core layers plus one Location (its project created on first use), without PermissionV2. */
export const locationTestLayer = (options: PermissionTestOptions = {}) => {
  const dataDir = makeTempDir()
  const directory = options.directory ?? makeTempDir()
  mkdirSync(directory, { recursive: true })
  const core = coreTestLayer({
    dataDir,
    ...(options.config ? { config: options.config } : {}),
    ...(options.database ? { database: options.database } : {}),
  })
  return Location.layerFromDirectory(directory).pipe(Layer.provideMerge(core))
}

/** {@link locationTestLayer} plus the Location's PermissionV2. */
export const permissionTestLayer = (options: PermissionTestOptions = {}) => {
  const permission = options.agents
    ? PermissionV2.layer.pipe(Layer.provide(Agents.layerValue(options.agents)))
    : PermissionV2.layer
  return permission.pipe(Layer.provideMerge(locationTestLayer(options)))
}

/** An agent with exactly these rules. */
export const agent = (name: string, rules: ReadonlyArray<PermissionRule>): Agents.Agent => ({
  name,
  description: name,
  mode: "primary",
  hidden: false,
  rules,
})

/** A session of the test Location's project. */
export const newSession = (agentName = "tester") =>
  Effect.gen(function* () {
    const location = yield* Location.Service
    const sessions = yield* Sessions.Service
    return yield* sessions.create({ projectId: location.projectId, agent: agentName, title: "t", source: "runner" })
  })

/** Every event published from now on, collected as they come (scoped). */
export const recordEvents = Effect.gen(function* () {
  const bus = yield* EventBus.Service
  const subscription = yield* bus.subscribe(() => undefined)
  const seen: AppEvent[] = []
  /** Waits until an event satisfying `predicate` has been published (after subscribing). */
  const until = (predicate: (event: AppEvent) => boolean) =>
    Effect.gen(function* () {
      while (!seen.some(predicate)) {
        const batch = yield* subscription.takeBatch
        seen.push(...batch.map((envelope) => envelope.event))
      }
    })
  /** Drains what is already queued and returns everything seen. */
  const drain = Effect.gen(function* () {
    while (seen.length < bus.sequence() - subscription.seq) {
      const batch = yield* subscription.takeBatch
      seen.push(...batch.map((envelope) => envelope.event))
    }
    return seen
  })
  return { seen, until, drain }
})
