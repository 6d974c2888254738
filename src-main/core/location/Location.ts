import { Context, Effect, Layer } from "effect"
import type { ProjectId } from "@contract/ids"
import { Projects } from "../session/Projects"

export * as Location from "./Location"

/**
 * The project directory that per-Location services (PermissionV2, LocationMutation, the tool
 * registry) work in. One per project: build the per-Location layers once for each directory, over
 * the process-level layers, e.g.
 *
 *   PermissionV2.layer.pipe(Layer.provideMerge(LocationMutation.layer), Layer.provideMerge(Location.layerFromDirectory(dir)))
 */
export interface Interface {
  readonly projectId: ProjectId
  /** The project's canonical directory (realpath): every resource inside is relative to it. */
  readonly directory: string
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/location/Location") {}

/** A Location for a known project and its canonical directory. */
export const layer = (location: Interface) => Layer.succeed(Service, Service.of(location))

/** The Location of a directory, creating its project on first use (Projects canonicalizes the path). */
export const layerFromDirectory = (directory: string) =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const projects = yield* Projects.Service
      const project = yield* projects.ensure(directory)
      return Service.of({ projectId: project.id, directory: project.directory })
    }),
  )
