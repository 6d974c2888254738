import { Context, Effect, Layer, RcMap, Schema, type Duration, type Scope } from "effect"
import type { ProjectId } from "@contract/ids"
import type { PermissionRequest, Project } from "@contract/model"
import { AskSources } from "../permission/AskSources"
import { PermissionV2 } from "../permission/PermissionV2"
import { Projects } from "../session/Projects"
import { ToolRegistry } from "../tool/ToolRegistry"
import type { Tools } from "../tool/Tools"
import { Location } from "./Location"
import { LocationMutation } from "./LocationMutation"

export * as Locations from "./Locations"

/** What every live Location provides to the code that runs in it. */
export type LocationServices =
  Location.Service | LocationMutation.Service | PermissionV2.Service | ToolRegistry.Service | Tools.Service

/** One live Location: a project directory with its own registry and permission engine. */
export interface Handle {
  readonly project: Project
  readonly permission: PermissionV2.Interface
  readonly registry: ToolRegistry.Interface
  readonly mutation: LocationMutation.Interface
  /** The Location's services, for running a tool call or a plugin inside it. */
  readonly context: Context.Context<LocationServices>
}

export class UnknownProjectError extends Schema.TaggedError<UnknownProjectError>()("Locations.UnknownProjectError", {
  projectId: Schema.String,
}) {
  override get message() {
    return `Project not found: ${this.projectId}`
  }
}

/**
 * The live Locations of the process, one per project, created on demand and disposed when no one
 * has used one for a while (a Location's teardown declines its pending asks). The inbox reaches
 * every pending ask through here, whichever project asked.
 */
export interface Interface {
  /** The project's Location, built on first use and kept while the caller's scope is open. */
  readonly acquire: (projectId: ProjectId) => Effect.Effect<Handle, UnknownProjectError, Scope.Scope>
  /** Every live Location (synchronous, for snapshots). */
  readonly liveUnsafe: () => ReadonlyArray<Handle>
  /** Every pending ask of every live Location, oldest first (synchronous, for snapshots). */
  readonly pendingUnsafe: () => ReadonlyArray<PermissionRequest>
  /** Answers a pending ask in whichever Location holds it. */
  readonly reply: (input: PermissionV2.ReplyInput) => Effect.Effect<void, PermissionV2.NotFoundError>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/location/Locations") {}

export interface Options<E, R> {
  /**
   * Built once inside every Location, e.g. the built-in tools registering themselves through
   * `Tools`. Its registrations live exactly as long as the Location.
   */
  readonly plugins: Layer.Layer<never, E, LocationServices | R>
  /** How long an unused Location stays alive (default 30 seconds). */
  readonly idleTimeToLive?: Duration.Input
}

/** The per-Location services of one project, over the process-level layers. */
export const locationLayer = (project: Project) =>
  Layer.mergeAll(PermissionV2.layer, ToolRegistry.layer).pipe(
    Layer.provideMerge(LocationMutation.layer),
    Layer.provideMerge(Location.layer({ projectId: project.id, directory: project.directory })),
  )

export const layer = <E, R>(options: Options<E, R>) =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const projects = yield* Projects.Service
      const live = new Map<ProjectId, Handle>()

      const build = (projectId: ProjectId) =>
        Effect.gen(function* () {
          const project = yield* projects.get(projectId)
          if (!project) return yield* new UnknownProjectError({ projectId })
          const context = yield* Layer.build(
            // A plugin that cannot register (a bad tool name) is a bug, not a condition to handle.
            options.plugins.pipe(Layer.orDie, Layer.provideMerge(locationLayer(project))),
          )
          const handle: Handle = {
            project,
            permission: Context.get(context, PermissionV2.Service),
            registry: Context.get(context, ToolRegistry.Service),
            mutation: Context.get(context, LocationMutation.Service),
            context: context as Context.Context<LocationServices>,
          }
          yield* Effect.acquireRelease(
            Effect.sync(() => live.set(projectId, handle)),
            () => Effect.sync(() => live.delete(projectId)),
          )
          return handle
        })

      const map = yield* RcMap.make({ lookup: build, idleTimeToLive: options.idleTimeToLive ?? "30 seconds" })

      const liveUnsafe = () => [...live.values()]
      const pendingUnsafe = () =>
        liveUnsafe()
          .flatMap((handle) => handle.permission.listUnsafe())
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

      const reply = Effect.fn("Locations.reply")(function* (input: PermissionV2.ReplyInput) {
        const holder = liveUnsafe().find((handle) =>
          handle.permission.listUnsafe().some((request) => request.id === input.requestID),
        )
        if (!holder) return yield* new PermissionV2.NotFoundError({ requestID: input.requestID })
        return yield* holder.permission.reply(input)
      })

      // The inbox reaches these asks through the process's ask sources, beside connected servers'.
      const sources = yield* AskSources.Service
      yield* sources.register({
        pendingUnsafe: () =>
          liveUnsafe().flatMap((handle) =>
            handle.permission.listUnsafe().map((request) => ({ request, projectID: handle.project.id })),
          ),
        holdsUnsafe: (requestID) =>
          liveUnsafe().some((handle) => handle.permission.listUnsafe().some((request) => request.id === requestID)),
        reply,
      })

      return Service.of({
        acquire: (projectId) => RcMap.get(map, projectId),
        liveUnsafe,
        pendingUnsafe,
        reply,
      })
    }),
  )
