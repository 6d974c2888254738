import Database from "better-sqlite3"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { Context, Effect, Layer, Schema } from "effect"
import { DataDir } from "../config/DataDir"
import type { Migration } from "./migrations/Migration"
import { migrations as allMigrations } from "./migrations"
import type { Sql } from "./sql"

export * as Store from "./Store"

/**
 * Synchronous access to the one SQLite database. better-sqlite3 is synchronous, so services call
 * these inside `Effect.sync` and can change the database and publish the matching event in one
 * uninterrupted step. SQLite failures (disk full, corruption) throw and become defects.
 */
export interface Interface {
  /** Absolute path of the database file (`:memory:` in tests). */
  readonly filename: string
  /** Every row of a query, each decoded with `row` (a row that does not decode throws {@link RowDecodeError}). */
  readonly all: <S extends Schema.ConstraintDecoder<unknown>>(row: S, query: Sql) => Array<S["Type"]>
  /** The first row of a query, decoded, or `undefined`. */
  readonly get: <S extends Schema.ConstraintDecoder<unknown>>(row: S, query: Sql) => S["Type"] | undefined
  /** Runs a statement that changes data. */
  readonly run: (query: Sql) => Database.RunResult
  /** Runs `f` in one `BEGIN IMMEDIATE` transaction (nested calls join the outer one). */
  readonly transaction: <A>(f: () => A) => A
  /** The raw handle, for migrations and diagnostics only. */
  readonly raw: Database.Database
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/store/Store") {}

/** The database was written by a newer Gatehouse; opening it could corrupt data that version relies on. */
export class DatabaseFromFutureError extends Schema.TaggedError<DatabaseFromFutureError>()(
  "Store.DatabaseFromFutureError",
  { filename: Schema.String, found: Schema.Number, supported: Schema.Number },
) {
  override get message() {
    return `${this.filename} is at schema version ${this.found}, newer than this Gatehouse supports (${this.supported}). Upgrade Gatehouse or move the file away.`
  }
}

/** The migration list itself is broken (a programming error caught at start-up). */
export class MigrationOrderError extends Schema.TaggedError<MigrationOrderError>()("Store.MigrationOrderError", {
  previous: Schema.Number,
  next: Schema.Number,
}) {
  override get message() {
    return `Migrations must have strictly increasing versions: ${this.next} follows ${this.previous}`
  }
}

/** SQLite could not open or migrate the database file. */
export class OpenError extends Schema.TaggedError<OpenError>()("Store.OpenError", {
  filename: Schema.String,
  cause: Schema.Defect(),
}) {
  override get message() {
    return `Cannot open the database ${this.filename}: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

/** A row read from the database does not match the shape the code expects. */
export class RowDecodeError extends Error {
  constructor(
    readonly query: string,
    readonly reason: string,
  ) {
    super(`A database row does not match its schema (${reason}) in: ${query.trim().slice(0, 200)}`)
    this.name = "Store.RowDecodeError"
  }
}

export interface OpenOptions {
  readonly filename: string
  /** Path of a better_sqlite3.node built for another runtime (the Electron build, see README). */
  readonly nativeBinding?: string
  readonly migrations?: ReadonlyArray<Migration>
}

/** Opens (creating if needed) and migrates a database. Pure Node; used by the layers and the tests. */
export function open(options: OpenOptions): Database.Database {
  const migrations = options.migrations ?? allMigrations
  checkOrder(migrations)
  const db = new Database(options.filename, {
    timeout: 5000,
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
  })
  try {
    db.pragma("journal_mode = WAL")
    db.pragma("synchronous = FULL")
    db.pragma("foreign_keys = ON")
    db.pragma("busy_timeout = 5000")
    migrate(db, options.filename, migrations)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

function checkOrder(migrations: ReadonlyArray<Migration>) {
  for (let i = 1; i < migrations.length; i++) {
    const previous = migrations[i - 1]!.version
    const next = migrations[i]!.version
    if (next <= previous) throw new MigrationOrderError({ previous, next })
  }
}

/**
 * Applies every pending migration and the new `user_version` in one immediate transaction, so a
 * process killed half-way leaves the database at its old version, and the next start redoes it all.
 */
export function migrate(db: Database.Database, filename: string, migrations: ReadonlyArray<Migration>) {
  const current = db.pragma("user_version", { simple: true }) as number
  const latest = migrations.at(-1)?.version ?? 0
  if (current > latest) throw new DatabaseFromFutureError({ filename, found: current, supported: latest })
  const pending = migrations.filter((m) => m.version > current)
  if (pending.length === 0) return
  db.transaction(() => {
    for (const migration of pending) migration.up(db)
    db.pragma(`user_version = ${latest}`)
  }).immediate()
}

export function make(db: Database.Database): Interface {
  const cache = new Map<string, Database.Statement>()
  const prepare = (query: Sql) => {
    let statement = cache.get(query.text)
    if (!statement) {
      statement = db.prepare(query.text)
      cache.set(query.text, statement)
    }
    return statement
  }
  const decode = <S extends Schema.ConstraintDecoder<unknown>>(row: S, query: Sql, value: unknown): S["Type"] => {
    const result = Schema.decodeUnknownExit(row)(value)
    if (result._tag === "Success") return result.value
    throw new RowDecodeError(query.text, String(result.cause))
  }
  return {
    filename: db.name,
    raw: db,
    all: (row, query) =>
      prepare(query)
        .all(...query.values)
        .map((value) => decode(row, query, value)),
    get: (row, query) => {
      const value = prepare(query).get(...query.values)
      return value === undefined ? undefined : decode(row, query, value)
    },
    run: (query) => prepare(query).run(...query.values),
    transaction: (f) => (db.inTransaction ? f() : db.transaction(f).immediate()),
  }
}

const scoped = (options: OpenOptions) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => open(options),
      catch: (error) =>
        error instanceof DatabaseFromFutureError || error instanceof MigrationOrderError
          ? error
          : new OpenError({ filename: options.filename, cause: error }),
    }),
    (db) =>
      Effect.sync(() => {
        if (!db.open) return
        db.pragma("optimize")
        db.close()
      }),
  ).pipe(Effect.map(make))

export interface LayerOptions {
  readonly nativeBinding?: string
}

/** The app's database: `<data dir>/gatehouse.db`, closed when the runtime is disposed. */
export const layer = (options: LayerOptions = {}) =>
  Layer.effect(
    Service,
    Effect.gen(function* () {
      const dataDir = yield* DataDir.Service
      mkdirSync(dataDir.path, { recursive: true })
      return yield* scoped({ filename: join(dataDir.path, "gatehouse.db"), ...options })
    }),
  )

/** A fresh in-memory database with every migration applied, for tests. */
export const layerMemory = Layer.effect(Service, scoped({ filename: ":memory:" }))

/** A database at an explicit path (tests that need a real file, restarts, or two handles). */
export const layerFile = (filename: string) => Layer.effect(Service, scoped({ filename }))
