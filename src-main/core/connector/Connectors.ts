import { Context, Effect, Exit, Layer, Schema, Scope } from "effect"
import type { ProjectId, SessionId } from "@contract/ids"
import {
  ConnectorConflictError as ConflictError,
  ConnectorInvalidError as InvalidError,
  ConnectorNotFoundError as NotFoundError,
  ConnectorReadOnlyError as ReadOnlyError,
  type ConnectorsAddInput,
} from "@contract/methods"
import type { ConnectorInfo } from "@contract/model"
import { Config } from "../config/Config"
import { EventBus } from "../events/EventBus"
import { Sessions } from "../session/Sessions"
import { Store } from "../store/Store"
import { sql } from "../store/sql"
import * as OpencodeConnection from "./opencode/Connection"
import { defaultName, nameProblem, parseServerUrl } from "./opencode/mapping"

export * as Connectors from "./Connectors"

/** A server as the person enters it (`connectors.add`). */
export type AddInput = ConnectorsAddInput

// The errors are the contract's own: the UI gets them as they are, with no mapping in between.
export { ConflictError, InvalidError, NotFoundError, ReadOnlyError }

/**
 * The agent servers Gatehouse supervises (`connectors.opencode` in config.jsonc, and the ones
 * added in the UI, kept in the `connector` table). Each connection is its own fiber in its own
 * scope: one that cannot connect is a state shown in the UI, never a failure of the app.
 */
export interface Interface {
  /** Every connection with its state: config.jsonc's first, then the added ones (synchronous, for snapshots). */
  readonly listUnsafe: () => ReadonlyArray<ConnectorInfo>
  /** Adds a server, keeps it across restarts and starts connecting. */
  readonly add: (input: AddInput) => Effect.Effect<ConnectorInfo, InvalidError | ConflictError>
  /** Disconnects and forgets a server added in the UI; its asks leave the inbox, its sessions stay. */
  readonly remove: (name: string) => Effect.Effect<void, NotFoundError | ReadOnlyError>
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/connector/Connectors") {}

const MirrorRow = Schema.Struct({ session_id: Schema.String })

const Row = Schema.Struct({
  name: Schema.String,
  url: Schema.String,
  username: Schema.NullOr(Schema.String),
  password: Schema.NullOr(Schema.String),
})

/** The connections of config.jsonc, checked like the rest of the file (the app does not start on a bad one). */
function configured(config: Config.Interface, env: NodeJS.ProcessEnv): ReadonlyArray<OpencodeConnection.Settings> {
  const entries = config.config.connectors?.opencode ?? []
  const names = new Set<string>()
  return entries.map((entry, index) => {
    const at = (key: string) => `connectors.opencode[${index}].${key}`
    const parsed = parseServerUrl(entry.url)
    if ("problem" in parsed) throw new Config.InvalidError({ file: config.file, at: at("url"), reason: parsed.problem })
    const name = entry.name ?? defaultName(parsed.url)
    const problem = nameProblem(name)
    if (problem) throw new Config.InvalidError({ file: config.file, at: at("name"), reason: problem })
    if (entry.username?.includes(":"))
      throw new Config.InvalidError({
        file: config.file,
        at: at("username"),
        reason: "a user name cannot contain a colon",
      })
    if (names.has(name))
      throw new Config.InvalidError({ file: config.file, at: at("name"), reason: `${name} is used twice` })
    names.add(name)
    let password = entry.password
    if (entry.password_env !== undefined) {
      password = env[entry.password_env]
      if (password === undefined)
        throw new Config.InvalidError({
          file: config.file,
          at: at("password_env"),
          reason: `the environment variable ${entry.password_env} is not set`,
        })
    }
    return {
      name,
      url: parsed.url,
      origin: "config" as const,
      ...(entry.username !== undefined ? { username: entry.username } : {}),
      ...(password !== undefined ? { password } : {}),
    }
  })
}

export const layer = (
  options: { readonly env?: NodeJS.ProcessEnv; readonly tuning?: OpencodeConnection.Tuning } = {},
) =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const config = yield* Config.Service
      const store = yield* Store.Service
      const bus = yield* EventBus.Service
      const sessions = yield* Sessions.Service
      const layerScope = yield* Effect.scope
      const services = yield* Effect.context<OpencodeConnection.Services>()
      const fromConfig = yield* Effect.try({
        try: () => configured(config, options.env ?? process.env),
        catch: (error) =>
          error instanceof Config.InvalidError
            ? error
            : new Config.InvalidError({ file: config.file, at: "connectors", reason: String(error) }),
      })

      const open = new Map<
        string,
        { readonly connection: OpencodeConnection.Connection; readonly scope: Scope.Closeable }
      >()
      // Config first, then the added ones in the order they were added; a Map keeps insertion order.
      const start = (settings: OpencodeConnection.Settings) =>
        Effect.gen(function* () {
          const scope = yield* Scope.fork(layerScope)
          const connection = yield* OpencodeConnection.make(settings, options.tuning ?? {}).pipe(
            Scope.provide(scope),
            Effect.provide(services),
          )
          open.set(settings.name, { connection, scope })
          return connection
        })

      for (const settings of fromConfig) yield* start(settings)
      const stored = yield* Effect.sync(() =>
        store.all(Row, sql`SELECT name, url, username, password FROM connector ORDER BY created_at, name`),
      )
      for (const row of stored) {
        if (open.has(row.name)) {
          yield* Effect.logWarning(`Connector ${row.name} from the database is shadowed by config.jsonc`)
          continue
        }
        yield* start({
          name: row.name,
          url: row.url,
          origin: "ui",
          ...(row.username !== null ? { username: row.username } : {}),
          ...(row.password !== null ? { password: row.password } : {}),
        })
      }

      // An `always` saved anywhere in a project (a Gatehouse ask or a server's) may now allow
      // pending asks of that project on every server: answer those `once`. Hand-added approvals
      // never approve anything by themselves (as in PermissionV2).
      // Each server answers on its own fiber: one that is slow or down delays no other.
      const subscription = yield* bus.subscribe(() => undefined)
      yield* Effect.forkScoped(
        Effect.forever(
          Effect.gen(function* () {
            const projects = new Set<ProjectId>()
            for (const envelope of yield* subscription.takeBatch)
              if (envelope.event._tag === "approval.added" && envelope.event.approval.requestID !== null)
                projects.add(envelope.event.approval.projectID)
            for (const projectID of projects)
              for (const { connection, scope } of [...open.values()])
                yield* Effect.forkIn(
                  connection
                    .approveAllowed(projectID)
                    .pipe(
                      Effect.catchCause((cause) => Effect.logWarning("Approving pending server asks failed", cause)),
                    ),
                  scope,
                )
          }),
        ),
      )

      const listUnsafe = () => [...open.values()].map(({ connection }) => connection.info())

      const add = Effect.fn("Connectors.add")(function* (input: AddInput) {
        const parsed = parseServerUrl(input.url)
        if ("problem" in parsed) return yield* new InvalidError({ field: "url", reason: parsed.problem })
        const name = input.name?.trim() || defaultName(parsed.url)
        const problem = nameProblem(name)
        if (problem) return yield* new InvalidError({ field: "name", reason: problem })
        const username = input.username?.trim() || undefined
        const password = input.password === "" ? undefined : input.password
        if (username?.includes(":"))
          return yield* new InvalidError({ field: "username", reason: "A user name cannot contain a colon" })
        if (username !== undefined && password === undefined)
          return yield* new InvalidError({
            field: "password",
            reason: "Enter the password that goes with the user name",
          })
        if (open.has(name)) return yield* new ConflictError({ name })
        yield* Effect.sync(() =>
          store.run(
            sql`INSERT INTO connector (name, kind, url, username, password, created_at)
                VALUES (${name}, 'opencode', ${parsed.url}, ${username ?? null}, ${password ?? null}, ${Date.now()})`,
          ),
        )
        const connection = yield* start({
          name,
          url: parsed.url,
          origin: "ui",
          ...(username !== undefined ? { username } : {}),
          ...(password !== undefined ? { password } : {}),
        })
        const info = connection.info()
        yield* bus.publish({ _tag: "connector.updated", connector: info })
        return info
      })

      const remove = Effect.fn("Connectors.remove")(function* (name: string) {
        const current = open.get(name)
        if (!current) return yield* new NotFoundError({ name })
        if (current.connection.info().origin === "config") return yield* new ReadOnlyError({ name })
        open.delete(name)
        yield* Scope.close(current.scope, Exit.void)
        // Its sessions stay for the record, stopped: nothing follows them any more, and a server
        // added later under the same name starts afresh.
        const mirrored = yield* Effect.sync(() =>
          store.transaction(() => {
            const rows = store.all(
              MirrorRow,
              sql`SELECT c.session_id FROM connector_session c JOIN session s ON s.id = c.session_id
                  WHERE c.connector = ${name} AND s.status NOT IN ('stopped', 'failed')`,
            )
            store.run(sql`DELETE FROM connector_session WHERE connector = ${name}`)
            store.run(sql`DELETE FROM connector WHERE name = ${name}`)
            return rows
          }),
        )
        for (const row of mirrored)
          yield* sessions
            .setStatus(row.session_id as SessionId, "stopped", { reason: "The connection was removed" })
            .pipe(Effect.ignore)
        yield* bus.publish({ _tag: "connector.removed", name })
      })

      return Service.of({ listUnsafe, add, remove })
    }),
  )
