import { spawn } from "node:child_process"
import { join } from "node:path"
import Database from "better-sqlite3"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Store } from "@core/store/Store"
import type { Migration } from "@core/store/migrations/Migration"
import { migrations } from "@core/store/migrations"
import { sql } from "@core/store/sql"
import { bundleForChild } from "../../../support/child"
import { makeTempDir } from "../../../support/temp"

const latest = migrations.at(-1)!.version

describe("Store", () => {
  it("opens with WAL, synchronous FULL, foreign keys on and a busy timeout of at least 5000 ms", () => {
    const db = Store.open({ filename: join(makeTempDir(), "gatehouse.db") })
    assert.strictEqual(db.pragma("journal_mode", { simple: true }), "wal")
    assert.strictEqual(db.pragma("synchronous", { simple: true }), 2)
    assert.strictEqual(db.pragma("foreign_keys", { simple: true }), 1)
    assert.isAtLeast(db.pragma("busy_timeout", { simple: true }) as number, 5000)
    assert.strictEqual(db.pragma("user_version", { simple: true }), latest)
    db.close()
  })

  it("applies every migration once and is a no-op when reopened", () => {
    const filename = join(makeTempDir(), "gatehouse.db")
    Store.open({ filename }).close()
    const db = Store.open({ filename })
    assert.strictEqual(db.pragma("user_version", { simple: true }), latest)
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()
    assert.includeMembers(tables as string[], ["project", "session"])
    db.close()
  })

  it("refuses a database from a newer Gatehouse with a clear error and leaves it untouched", () => {
    const filename = join(makeTempDir(), "gatehouse.db")
    const raw = new Database(filename)
    raw.pragma(`user_version = ${latest + 10}`)
    raw.close()
    const error = assert.throws(() => Store.open({ filename }), Store.DatabaseFromFutureError) as unknown as Error
    assert.include(error.message, `is at schema version ${latest + 10}, newer than this Gatehouse supports (${latest})`)
    const after = new Database(filename)
    assert.strictEqual(after.pragma("user_version", { simple: true }), latest + 10)
    after.close()
  })

  it("rejects a migration list whose versions do not strictly increase", () => {
    const m = (version: number): Migration => ({ version, name: `m${version}`, up: () => {} })
    assert.throws(
      () => Store.open({ filename: ":memory:", migrations: [m(10), m(20), m(20)] }),
      /strictly increasing versions: 20 follows 20/,
    )
    assert.throws(() => Store.open({ filename: ":memory:", migrations: [m(20), m(10)] }), Store.MigrationOrderError)
  })

  it("rolls back every pending migration when one fails, so the next start redoes them all", () => {
    const filename = join(makeTempDir(), "gatehouse.db")
    const failing: Migration = {
      version: latest + 10,
      name: "explodes",
      up(db) {
        db.exec("CREATE TABLE half_done (x INTEGER) STRICT")
        throw new Error("killed half-way")
      },
    }
    assert.throws(() => Store.open({ filename, migrations: [...migrations, failing] }), /killed half-way/)
    const db = new Database(filename)
    assert.strictEqual(db.pragma("user_version", { simple: true }), 0)
    assert.strictEqual(db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get(), 0)
    db.close()
    const reopened = Store.open({ filename })
    assert.strictEqual(reopened.pragma("user_version", { simple: true }), latest)
    reopened.close()
  })

  it("opens cleanly after the first run is killed with SIGKILL at any moment", async () => {
    const dir = makeTempDir()
    // The child opens (creating and migrating) the database in a loop as fast as it can, deleting it
    // each time, so a kill lands in the middle of creation, pragmas or the migration transaction.
    const child = await bundleForChild(
      "store-kill-child",
      `import { rmSync } from "node:fs"
       import { open } from ${JSON.stringify(join(process.cwd(), "src-main/core/store/Store.ts"))}
       const file = process.argv[2]
       process.stdout.write("ready\\n")
       for (;;) { for (const f of [file, file + "-wal", file + "-shm"]) rmSync(f, { force: true }); open({ filename: file }).close() }`,
    )
    for (let cycle = 0; cycle < 12; cycle++) {
      const filename = join(dir, `db-${cycle}.db`)
      const proc = spawn(process.execPath, [child, filename], { stdio: ["ignore", "pipe", "inherit"] })
      await new Promise<void>((resolve) => proc.stdout.once("data", () => resolve()))
      await new Promise((resolve) => setTimeout(resolve, 5 + cycle * 7))
      proc.kill("SIGKILL")
      await new Promise((resolve) => proc.once("exit", resolve))
      const db = Store.open({ filename })
      assert.strictEqual(db.pragma("integrity_check", { simple: true }), "ok")
      assert.strictEqual(db.pragma("user_version", { simple: true }), latest)
      db.close()
    }
  }, 60_000)

  it.effect("decodes rows with their schema and names the query when a row does not match", () =>
    Effect.gen(function* () {
      const store = yield* Store.Service
      store.run(sql`CREATE TABLE t (id INTEGER NOT NULL, label TEXT) STRICT`)
      store.run(sql`INSERT INTO t (id, label) VALUES (${1}, ${"one"}), (${2}, ${null})`)
      const Row = Schema.Struct({ id: Schema.Number, label: Schema.String })
      assert.deepStrictEqual(store.all(Row, sql`SELECT id, label FROM t WHERE id = ${1}`), [{ id: 1, label: "one" }])
      assert.strictEqual(store.get(Row, sql`SELECT id, label FROM t WHERE id = ${99}`), undefined)
      const error = assert.throws(() => store.all(Row, sql`SELECT id, label FROM t`), Store.RowDecodeError)
      assert.include(String(error), "SELECT id, label FROM t")
    }).pipe(Effect.provide(Store.layerMemory)),
  )

  it.effect("rolls a failing transaction back completely", () =>
    Effect.gen(function* () {
      const store = yield* Store.Service
      store.run(sql`CREATE TABLE t (id INTEGER PRIMARY KEY) STRICT`)
      assert.throws(() =>
        store.transaction(() => {
          store.run(sql`INSERT INTO t (id) VALUES (${1})`)
          store.run(sql`INSERT INTO t (id) VALUES (${1})`)
        }),
      )
      assert.strictEqual(store.all(Schema.Struct({ id: Schema.Number }), sql`SELECT id FROM t`).length, 0)
    }).pipe(Effect.provide(Store.layerMemory)),
  )
})
