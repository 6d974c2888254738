import { realpathSync, statSync } from "node:fs"
import { basename, isAbsolute } from "node:path"
import { Context, Effect, Layer, Schema } from "effect"
import { ProjectId } from "@contract/ids"
import type { Project } from "@contract/model"
import { EventBus } from "../events/EventBus"
import { newId } from "../id/Identifier"
import { Store } from "../store/Store"
import { sql } from "../store/sql"

export * as Projects from "./Projects"

/** The directory cannot be a project: it is relative, missing, or not a directory. */
export class InvalidDirectoryError extends Schema.TaggedError<InvalidDirectoryError>()(
  "Projects.InvalidDirectoryError",
  {
    directory: Schema.String,
    reason: Schema.String,
  },
) {
  override get message() {
    return `Cannot use ${this.directory} as a project: ${this.reason}`
  }
}

export interface Interface {
  /** The project for a directory (canonicalized with realpath), created on first use. */
  readonly ensure: (directory: string) => Effect.Effect<Project, InvalidDirectoryError>
  /**
   * The project for a directory on another machine (an agent server Gatehouse reaches over the
   * network), keyed `<machine>:<directory>`: it is never resolved here, and never the same
   * project as a local directory of the same path.
   */
  readonly ensureRemote: (machine: string, directory: string) => Effect.Effect<Project, InvalidDirectoryError>
  readonly get: (id: ProjectId) => Effect.Effect<Project | undefined>
  readonly list: () => Effect.Effect<ReadonlyArray<Project>>
  /** Synchronous read for snapshots (see EventBus's consistency rule). */
  readonly listUnsafe: () => ReadonlyArray<Project>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/session/Projects") {}

const Row = Schema.Struct({
  id: ProjectId,
  directory: Schema.String,
  name: Schema.String,
  created_at: Schema.Number,
})
const toProject = (row: typeof Row.Type): Project => ({
  id: row.id,
  directory: row.directory,
  name: row.name,
  createdAt: row.created_at,
})

/** Resolves a user-supplied directory to the canonical path a project is keyed by. */
export function canonicalDirectory(directory: string): string {
  if (!isAbsolute(directory)) throw new InvalidDirectoryError({ directory, reason: "the path must be absolute" })
  let real: string
  try {
    real = realpathSync(directory)
  } catch {
    throw new InvalidDirectoryError({ directory, reason: "it does not exist" })
  }
  if (!statSync(real).isDirectory()) throw new InvalidDirectoryError({ directory, reason: "it is not a directory" })
  return real
}

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const store = yield* Store.Service
    const bus = yield* EventBus.Service

    const byDirectory = (directory: string) =>
      store.get(Row, sql`SELECT id, directory, name, created_at FROM project WHERE directory = ${directory}`)

    /** The project keyed by `key`, created (named `name`) on first use. */
    const ensureKeyed = (key: string, name: string) =>
      Effect.sync(() =>
        store.transaction(() => {
          const existing = byDirectory(key)
          if (existing) return toProject(existing)
          const now = Date.now()
          const project: Project = { id: newId.project(), directory: key, name, createdAt: now }
          store.run(
            sql`INSERT INTO project (id, directory, name, created_at, updated_at) VALUES (${project.id}, ${project.directory}, ${project.name}, ${now}, ${now})`,
          )
          bus.publishUnsafe({ _tag: "project.created", project })
          return project
        }),
      )

    const ensure = Effect.fn("Projects.ensure")(function* (directory: string) {
      const canonical = yield* Effect.try({
        try: () => canonicalDirectory(directory),
        catch: (error) =>
          error instanceof InvalidDirectoryError
            ? error
            : new InvalidDirectoryError({ directory, reason: String(error) }),
      })
      return yield* ensureKeyed(canonical, basename(canonical) || canonical)
    })

    const ensureRemote = Effect.fn("Projects.ensureRemote")(function* (machine: string, directory: string) {
      // The other machine's path, POSIX or Windows, as that machine wrote it.
      if (!directory.startsWith("/") && !/^[A-Za-z]:[\\/]/.test(directory))
        return yield* new InvalidDirectoryError({ directory, reason: "the path must be absolute" })
      const trimmed = directory.length > 1 ? directory.replace(/[\\/]+$/, "") : directory
      const name = trimmed.split(/[\\/]/).at(-1) || trimmed
      return yield* ensureKeyed(`${machine}:${trimmed}`, name)
    })

    const listUnsafe = () =>
      store.all(Row, sql`SELECT id, directory, name, created_at FROM project ORDER BY created_at, id`).map(toProject)

    return Service.of({
      ensure,
      ensureRemote,
      get: (id) =>
        Effect.sync(() => {
          const row = store.get(Row, sql`SELECT id, directory, name, created_at FROM project WHERE id = ${id}`)
          return row && toProject(row)
        }),
      list: () => Effect.sync(listUnsafe),
      listUnsafe,
    })
  }),
)
