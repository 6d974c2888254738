import { execFileSync } from "node:child_process"
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { FileMutation } from "@main/tools/support/FileMutation"
import { makeTempDir } from "../../../support/temp"

const BOM = "\uFEFF"
const target = (canonical: string) => ({ canonical, resource: canonical })
const provide = Effect.provide(FileMutation.layer)

function dirs() {
  const root = makeTempDir("gatehouse-filemutation-")
  const inside = join(root, "inside")
  const outside = join(root, "outside")
  mkdirSync(inside)
  mkdirSync(outside)
  return { root, inside, outside }
}

describe("FileMutation", () => {
  it.effect("writes exactly one BOM when the old file or the new text had one, and none otherwise", () =>
    Effect.gen(function* () {
      const files = yield* FileMutation.Service
      const { inside } = dirs()
      const withBom = join(inside, "bom.txt")
      writeFileSync(withBom, `${BOM}old`)
      const first = yield* files.writeTextPreservingBom({ target: target(withBom), content: "new" })
      assert.strictEqual(readFileSync(withBom, "utf8"), `${BOM}new`)
      assert.isTrue(first.existed)

      const plain = join(inside, "plain.txt")
      writeFileSync(plain, "old")
      yield* files.writeTextPreservingBom({ target: target(plain), content: `${BOM}${BOM}new` })
      assert.strictEqual(readFileSync(plain, "utf8"), `${BOM}new`)

      const none = join(inside, "none.txt")
      const created = yield* files.writeTextPreservingBom({ target: target(none), content: "x" })
      assert.deepStrictEqual(readFileSync(none), Buffer.from("x"))
      assert.deepStrictEqual(created, { operation: "write", target: none, resource: none, existed: false })
    }).pipe(provide),
  )

  it.effect("creates missing parent directories and leaves no temporary file behind", () =>
    Effect.gen(function* () {
      const files = yield* FileMutation.Service
      const { inside } = dirs()
      const deep = join(inside, "a", "b", "c", "file.txt")
      yield* files.writeTextPreservingBom({ target: target(deep), content: "deep" })
      assert.strictEqual(readFileSync(deep, "utf8"), "deep")
      yield* files.writeTextPreservingBom({ target: target(deep), content: "again" })
      assert.deepStrictEqual(readdirSync(join(inside, "a", "b", "c")), ["file.txt"])
    }).pipe(provide),
  )

  it.effect("keeps the permission bits of a file it replaces", () =>
    Effect.gen(function* () {
      const files = yield* FileMutation.Service
      const { inside } = dirs()
      const script = join(inside, "run.sh")
      writeFileSync(script, "#!/bin/sh\n", { mode: 0o750 })
      yield* files.writeTextPreservingBom({ target: target(script), content: "#!/bin/sh\necho hi\n" })
      assert.strictEqual(statSync(script).mode & 0o777, 0o750)
    }).pipe(provide),
  )

  it.effect("detaches a hard link instead of writing through it to the other name", () =>
    Effect.gen(function* () {
      const files = yield* FileMutation.Service
      const { inside, outside } = dirs()
      const secret = join(outside, "secret.txt")
      writeFileSync(secret, "outside content")
      const link = join(inside, "hl.txt")
      linkSync(secret, link)
      yield* files.writeTextPreservingBom({ target: target(link), content: "replaced" })
      assert.strictEqual(readFileSync(secret, "utf8"), "outside content")
      assert.strictEqual(readFileSync(link, "utf8"), "replaced")
      assert.strictEqual(statSync(secret).nlink, 1)
    }).pipe(provide),
  )

  it.effect("refuses a conditional write when the bytes changed, keeping the foreign content", () =>
    Effect.gen(function* () {
      const files = yield* FileMutation.Service
      const { inside } = dirs()
      const file = join(inside, "file.txt")
      writeFileSync(file, "original")
      const expected = yield* files.read(target(file))
      writeFileSync(file, "foreign")
      const error = yield* Effect.flip(files.writeIfUnchanged({ target: target(file), expected, content: "mine" }))
      assert.instanceOf(error, FileMutation.StaleContentError)
      assert.strictEqual(error.path, file)
      assert.strictEqual(readFileSync(file, "utf8"), "foreign")
      const removed = yield* Effect.flip(files.removeIfUnchanged({ target: target(file), expected }))
      assert.instanceOf(removed, FileMutation.StaleContentError)
      assert.isTrue(existsSync(file))
    }).pipe(provide),
  )

  it.effect("lets exactly one of two writers computed from the same bytes win", () =>
    Effect.gen(function* () {
      const files = yield* FileMutation.Service
      const { inside } = dirs()
      const file = join(inside, "file.txt")
      writeFileSync(file, "base")
      const expected = yield* files.read(target(file))
      const results = yield* Effect.all(
        ["first", "second", "third"].map((content) =>
          Effect.exit(files.writeIfUnchanged({ target: target(file), expected, content })),
        ),
        { concurrency: "unbounded" },
      )
      assert.strictEqual(results.filter(Exit.isSuccess).length, 1)
      assert.include(["first", "second", "third"], readFileSync(file, "utf8"))
    }).pipe(provide),
  )

  it.effect("creates exclusively: an existing file or a dangling link at the name is TargetExistsError", () =>
    Effect.gen(function* () {
      const files = yield* FileMutation.Service
      const { inside, outside } = dirs()
      const existing = join(inside, "existing.txt")
      writeFileSync(existing, "keep")
      const clash = yield* Effect.flip(files.create({ target: target(existing), content: "new" }))
      assert.instanceOf(clash, FileMutation.TargetExistsError)
      assert.strictEqual(readFileSync(existing, "utf8"), "keep")

      const dangling = join(inside, "dangling.txt")
      symlinkSync(join(outside, "created.txt"), dangling)
      const link = yield* Effect.flip(files.create({ target: target(dangling), content: "new" }))
      assert.instanceOf(link, FileMutation.TargetExistsError)
      assert.deepStrictEqual(readdirSync(outside), [])

      const fresh = join(inside, "new", "file.txt")
      const created = yield* files.create({ target: target(fresh), content: "fresh" })
      assert.isFalse(created.existed)
      assert.strictEqual(readFileSync(fresh, "utf8"), "fresh")
    }).pipe(provide),
  )

  it.effect("never writes through a symbolic link put where the file was", () =>
    Effect.gen(function* () {
      const files = yield* FileMutation.Service
      const { inside, outside } = dirs()
      const secret = join(outside, "secret.txt")
      writeFileSync(secret, "secret")
      const file = join(inside, "file.txt")
      symlinkSync(secret, file)
      const write = yield* Effect.flip(files.writeTextPreservingBom({ target: target(file), content: "pwned" }))
      assert.instanceOf(write, FileMutation.FileSystemError)
      const read = yield* Effect.flip(files.read(target(file)))
      assert.instanceOf(read, FileMutation.FileSystemError)
      assert.strictEqual(readFileSync(secret, "utf8"), "secret")
    }).pipe(provide),
  )

  it.effect("refuses when a directory on the path was replaced by a link to the outside", () =>
    Effect.gen(function* () {
      const files = yield* FileMutation.Service
      const { inside, outside } = dirs()
      const sub = join(inside, "sub")
      mkdirSync(sub)
      writeFileSync(join(sub, "file.txt"), "inside")
      writeFileSync(join(outside, "file.txt"), "outside")
      const file = join(sub, "file.txt")
      const expected = yield* files.read(target(file))
      // The swap an agent's shell could make between approval and write.
      renameSync(sub, join(inside, "moved"))
      symlinkSync(outside, sub)
      const write = yield* Effect.flip(files.writeTextPreservingBom({ target: target(file), content: "pwned" }))
      assert.instanceOf(write, FileMutation.FileSystemError)
      const conditional = yield* Effect.flip(
        files.writeIfUnchanged({ target: target(file), expected: Buffer.from("outside"), content: "pwned" }),
      )
      assert.instanceOf(conditional, FileMutation.FileSystemError)
      const nested = yield* Effect.flip(
        files.create({ target: target(join(sub, "new", "deeper.txt")), content: "pwned" }),
      )
      assert.instanceOf(nested, FileMutation.FileSystemError)
      assert.deepStrictEqual(readdirSync(outside), ["file.txt"])
      assert.strictEqual(readFileSync(join(outside, "file.txt"), "utf8"), "outside")
      assert.deepStrictEqual(expected, Buffer.from("inside"))
    }).pipe(provide),
  )

  it.effect("reads only regular files: a FIFO or a directory fails at once", () =>
    Effect.gen(function* () {
      const files = yield* FileMutation.Service
      const { inside } = dirs()
      const fifo = join(inside, "fifo")
      execFileSync("mkfifo", [fifo])
      const error = yield* Effect.flip(files.read(target(fifo)))
      assert.instanceOf(error, FileMutation.FileSystemError)
      const directory = yield* Effect.flip(files.read(target(inside)))
      assert.instanceOf(directory, FileMutation.FileSystemError)
    }).pipe(provide),
  )

  it.effect("removes a file whose bytes are unchanged", () =>
    Effect.gen(function* () {
      const files = yield* FileMutation.Service
      const { inside } = dirs()
      const file = join(inside, "gone.txt")
      writeFileSync(file, "bye")
      const removed = yield* files.removeIfUnchanged({ target: target(file), expected: Buffer.from("bye") })
      assert.deepStrictEqual(removed, { operation: "remove", target: file, resource: file })
      assert.isFalse(existsSync(file))
    }).pipe(provide),
  )
})
