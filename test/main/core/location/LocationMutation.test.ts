import { createHash } from "node:crypto"
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { spawn } from "node:child_process"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import fc from "fast-check"
import { newId } from "@core/id/Identifier"
import { Location } from "@core/location/Location"
import { LocationMutation } from "@core/location/LocationMutation"
import { makeTempDir } from "../../../support/temp"

// Layout (B = a fresh temp dir, R = B/root is the Location):
//   B/sentinel.txt  B/outside/secret.txt  B/root-evil/secret.txt  B/alias-root -> R
//   R/file.txt  R/..x  R/%2e%2e/secret.txt  R/sub/inner.txt  R/sub/..x
//   R/link-in -> R/sub              R/link-out -> B/outside        R/link-file-out -> B/outside/secret.txt
//   R/chain1 -> chain2 -> link-out  R/chain-in1 -> chain-in2 -> sub
//   R/dangling-out -> B/outside/new.txt   R/dangling-in -> sub/new.txt   R/dangling-rel-out -> ../outside/x
//   R/loop1 <-> R/loop2             R/sneaky -> sub/../../outside/secret.txt
function fixture() {
  const base = makeTempDir()
  const root = join(base, "root")
  const outside = join(base, "outside")
  for (const dir of [root, outside, join(base, "root-evil"), join(root, "sub"), join(root, "%2e%2e")]) mkdirSync(dir)
  writeFileSync(join(base, "sentinel.txt"), "do not touch")
  writeFileSync(join(outside, "secret.txt"), "outside secret")
  writeFileSync(join(base, "root-evil", "secret.txt"), "sibling secret")
  writeFileSync(join(root, "file.txt"), "inside")
  writeFileSync(join(root, "..x"), "a legal name")
  writeFileSync(join(root, "%2e%2e", "secret.txt"), "a literal name")
  writeFileSync(join(root, "sub", "inner.txt"), "inner")
  writeFileSync(join(root, "sub", "..x"), "inner legal name")
  symlinkSync(root, join(base, "alias-root"))
  symlinkSync(join(root, "sub"), join(root, "link-in"))
  symlinkSync(outside, join(root, "link-out"))
  symlinkSync(join(outside, "secret.txt"), join(root, "link-file-out"))
  symlinkSync("link-out", join(root, "chain2"))
  symlinkSync("chain2", join(root, "chain1"))
  symlinkSync("sub", join(root, "chain-in2"))
  symlinkSync("chain-in2", join(root, "chain-in1"))
  symlinkSync(join(outside, "new.txt"), join(root, "dangling-out"))
  symlinkSync("sub/new.txt", join(root, "dangling-in"))
  symlinkSync("../outside/x", join(root, "dangling-rel-out"))
  symlinkSync("loop2", join(root, "loop1"))
  symlinkSync("loop1", join(root, "loop2"))
  symlinkSync("sub/../../outside/secret.txt", join(root, "sneaky"))
  return { base, root, outside }
}

/** Every file under `dir` (not following links) with a hash of its content. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name)
    out[path] = entry.isFile()
      ? createHash("sha256").update(readFileSync(path)).digest("hex")
      : entry.isDirectory()
        ? "dir"
        : "link"
  }
  return out
}

type Expected =
  | { readonly error: LocationMutation.PathErrorReason }
  | { readonly resource: string; readonly external?: string; readonly canonical?: string }

const { base, root, outside } = fixture()
const resolve = (input: LocationMutation.Input) =>
  Effect.gen(function* () {
    const mutation = yield* LocationMutation.Service
    return yield* Effect.exit(mutation.resolve(input))
  }).pipe(
    Effect.provide(LocationMutation.layer),
    Effect.provide(Location.layer({ projectId: newId.project(), directory: root })),
  )

const cases: ReadonlyArray<readonly [string, LocationMutation.Input, Expected]> = [
  ["an existing file", { path: "file.txt" }, { resource: "file.txt", canonical: join(root, "file.txt") }],
  ["an existing directory", { path: "sub" }, { resource: "sub" }],
  ["the root as .", { path: "." }, { resource: "." }],
  ["the root as the empty path", { path: "" }, { resource: "." }],
  ["a trailing separator", { path: "sub/" }, { resource: "sub" }],
  ["a doubled separator", { path: "sub//inner.txt" }, { resource: "sub/inner.txt" }],
  ["dot segments", { path: "./sub/./inner.txt" }, { resource: "sub/inner.txt" }],
  ["a missing nested file", { path: "sub/new/deeper.txt" }, { resource: "sub/new/deeper.txt" }],
  ["a file's trailing separator", { path: "file.txt/" }, { resource: "file.txt" }],
  [".. alone", { path: ".." }, { error: "relative_escape" }],
  [".. first", { path: "../x" }, { error: "relative_escape" }],
  [".. in the middle climbing out", { path: "sub/../../x" }, { error: "relative_escape" }],
  [".. last climbing out", { path: "sub/../.." }, { error: "relative_escape" }],
  [".. deep", { path: "../../../../../../../../etc/passwd" }, { error: "relative_escape" }],
  [".. out and back in by name", { path: "../root/file.txt" }, { error: "relative_escape" }],
  [".. into a root-evil sibling", { path: "../root-evil/secret.txt" }, { error: "relative_escape" }],
  [".. that stays inside", { path: "sub/../file.txt" }, { resource: "file.txt" }],
  [".. through missing directories", { path: "a/b/../../file.txt" }, { resource: "file.txt" }],
  [".. after a symlink, taken lexically", { path: "link-out/../root/file.txt" }, { resource: "root/file.txt" }],
  ["a file called ..x", { path: "..x" }, { resource: "..x" }],
  ["..x in a subdirectory", { path: "sub/..x" }, { resource: "sub/..x" }],
  ["a new file called ...", { path: "..." }, { resource: "..." }],
  ["encoded dots as a literal directory", { path: "%2e%2e/secret.txt" }, { resource: "%2e%2e/secret.txt" }],
  ["encoded dots and slash as a literal name", { path: "%2e%2e%2f..%2fx" }, { resource: "%2e%2e%2f..%2fx" }],
  ["backslashes as literal name characters (POSIX)", { path: "sub\\..\\..\\x" }, { resource: "sub\\..\\..\\x" }],
  ["a NUL byte", { path: "file.txt\0.png" }, { error: "invalid_path" }],
  ["only a NUL byte", { path: "\0" }, { error: "invalid_path" }],
  ["%00 as a literal name", { path: "%00" }, { resource: "%00" }],
  ["a symlink to a directory inside", { path: "link-in/inner.txt" }, { resource: "sub/inner.txt" }],
  ["a symlink chain ending inside", { path: "chain-in1/inner.txt" }, { resource: "sub/inner.txt" }],
  ["a symlink to a directory outside", { path: "link-out" }, { error: "location_escape" }],
  ["a file through an outside symlink", { path: "link-out/secret.txt" }, { error: "location_escape" }],
  ["a new file under a symlinked ancestor", { path: "link-out/new.txt" }, { error: "location_escape" }],
  ["a new nested file under a symlinked ancestor", { path: "link-out/deep/er/new.txt" }, { error: "location_escape" }],
  ["a symlink to a file outside", { path: "link-file-out" }, { error: "location_escape" }],
  ["a symlink chain ending outside", { path: "chain1/secret.txt" }, { error: "location_escape" }],
  ["a dangling symlink to outside", { path: "dangling-out" }, { error: "location_escape" }],
  ["a relative dangling symlink to outside", { path: "dangling-rel-out" }, { error: "location_escape" }],
  ["a dangling symlink to inside", { path: "dangling-in" }, { resource: "sub/new.txt" }],
  ["a symlink whose target climbs out through ..", { path: "sneaky" }, { error: "location_escape" }],
  ["a symlink loop", { path: "loop1" }, { error: "invalid_path" }],
  ["a child of a file", { path: "file.txt/x" }, { error: "non_directory_ancestor" }],
  ["a child of a file named ..x", { path: "..x/y" }, { error: "non_directory_ancestor" }],
  ["an absolute path inside", { path: join(root, "file.txt") }, { resource: "file.txt" }],
  ["the absolute root", { path: root }, { resource: "." }],
  ["an absolute path inside with a trailing separator", { path: `${root}/sub/` }, { resource: "sub" }],
  ["an absolute path that leaves and re-enters", { path: `${root}/../root/file.txt` }, { resource: "file.txt" }],
  [
    "an absolute path through an inside symlink to outside",
    { path: join(root, "link-out", "secret.txt") },
    { error: "location_escape" },
  ],
  ["an absolute dangling symlink to outside", { path: join(root, "dangling-out") }, { error: "location_escape" }],
  [
    "an absolute file outside",
    { path: join(outside, "secret.txt"), kind: "file" },
    { resource: `${outside}/secret.txt`, external: outside },
  ],
  [
    "an absolute directory outside as a directory",
    { path: outside, kind: "directory" },
    { resource: outside, external: outside },
  ],
  ["an absolute directory outside as a file", { path: outside, kind: "file" }, { resource: outside, external: base }],
  ["an absolute directory outside without a kind", { path: `${outside}/` }, { resource: outside, external: outside }],
  [
    "a missing nested path outside",
    { path: join(outside, "new", "deeper", "x.txt") },
    { resource: `${outside}/new/deeper/x.txt`, external: outside },
  ],
  [
    "the root-evil sibling",
    { path: `${root}-evil/secret.txt` },
    { resource: `${base}/root-evil/secret.txt`, external: `${base}/root-evil` },
  ],
  [
    "an outside alias of the root",
    { path: join(base, "alias-root", "file.txt") },
    { resource: `${root}/file.txt`, external: root, canonical: join(root, "file.txt") },
  ],
  ["the filesystem root", { path: "/", kind: "directory" }, { resource: "/", external: "/" }],
  ["a child of an outside file", { path: join(base, "sentinel.txt", "x") }, { error: "non_directory_ancestor" }],
]

describe("LocationMutation", () => {
  it.effect(`resolves ${cases.length} hostile and ordinary paths as section F says and touches nothing`, () =>
    Effect.gen(function* () {
      assert.isAtLeast(cases.length, 40)
      const before = snapshot(base)
      for (const [name, input, expected] of cases) {
        const exit = yield* resolve(input)
        if ("error" in expected) {
          assert.isTrue(Exit.isFailure(exit), `${name}: expected ${expected.error}, got ${JSON.stringify(exit)}`)
          const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
          assert.strictEqual(error?._tag, "Fail", name)
          const failure = (error as { error: LocationMutation.PathError }).error
          assert.instanceOf(failure, LocationMutation.PathError, name)
          assert.deepStrictEqual([failure.reason, failure.path], [expected.error, input.path], name)
          continue
        }
        assert.isTrue(Exit.isSuccess(exit), `${name}: ${JSON.stringify(exit)}`)
        const target = Exit.isSuccess(exit) ? exit.value : undefined
        assert.strictEqual(target?.resource, expected.resource, name)
        if (expected.canonical) assert.strictEqual(target?.canonical, expected.canonical, name)
        if (expected.external === undefined) assert.isUndefined(target?.externalDirectory, name)
        else {
          const resource = expected.external === "/" ? "/*" : `${expected.external}/*`
          assert.deepStrictEqual(
            target?.externalDirectory,
            { action: "external_directory", directory: expected.external, resource, save: resource },
            name,
          )
        }
      }
      assert.deepStrictEqual(snapshot(base), before)
    }),
  )

  it.effect("drops unknown input fields", () =>
    Effect.gen(function* () {
      const input = { path: "file.txt", project: "../elsewhere", kind: "file" as const }
      const exit = yield* resolve(input)
      assert.deepStrictEqual(exit, Exit.succeed({ canonical: join(root, "file.txt"), resource: "file.txt" }))
    }),
  )

  it("refuses rather than crashes while another process keeps renaming a directory on the path", async () => {
    const root = makeTempDir()
    mkdirSync(join(root, "a", "x"), { recursive: true })
    // A real concurrent writer: a shell swapping `a` for a link to `b` and back as fast as it can.
    mkdirSync(join(root, "b", "x"), { recursive: true })
    const flipper = spawn("/bin/sh", ["-c", "while :; do mv a a.tmp; ln -s b a; rm a; mv a.tmp a; done"], {
      cwd: root,
      stdio: "ignore",
    })
    try {
      const outcomes = new Set<string>()
      for (let i = 0; i < 10_000; i++) {
        const result = LocationMutation.resolveIn(root, { path: "a/x/new.txt", kind: "file" })
        outcomes.add(result instanceof LocationMutation.PathError ? result.reason : "target")
        if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve))
      }
      for (const outcome of outcomes) assert.include(["target", "invalid_path", "non_directory_ancestor"], outcome)
    } finally {
      flipper.kill("SIGKILL")
    }
  })

  it("names its errors plainly", () => {
    assert.strictEqual(
      new LocationMutation.PathError({ path: "../x", reason: "relative_escape" }).message,
      'Relative path "../x" leaves the location',
    )
    assert.strictEqual(
      new LocationMutation.PathError({ path: "a\0b", reason: "invalid_path" }).message,
      'Path "a\\u0000b" cannot be resolved',
    )
  })

  it("agrees with an independent prefix walk on random paths (RELIABILITY 2.2)", () => {
    // No symbolic links and no files here, so only the lexical rules decide.
    const dir = makeTempDir()
    const location = join(dir, "root")
    mkdirSync(join(location, "a", "b"), { recursive: true })
    mkdirSync(join(dir, "root-evil"))
    const segment = fc.constantFrom("..", ".", "", "a", "b", "root", "root-evil", "..x", "%2e%2e", "x", "\\..")
    const anchor = fc.constantFrom("", location, dir, "/")
    fc.assert(
      fc.property(anchor, fc.array(segment, { maxLength: 8 }), (start, segments) => {
        const path = start === "" ? segments.join("/") : [start, ...segments].join("/")
        const actual = LocationMutation.resolveIn(location, { path })
        const expected = oracle(location, path)
        if (expected === "relative_escape") {
          assert.instanceOf(actual, LocationMutation.PathError, path)
          assert.strictEqual((actual as LocationMutation.PathError).reason, "relative_escape", path)
        } else if (expected.inside) {
          assert.notInstanceOf(actual, LocationMutation.PathError, path)
          assert.deepStrictEqual(actual, { canonical: expected.absolute, resource: expected.resource }, path)
        } else {
          assert.notInstanceOf(actual, LocationMutation.PathError, path)
          const target = actual as LocationMutation.Target
          assert.strictEqual(target.canonical, expected.absolute, path)
          assert.strictEqual(target.externalDirectory?.action, "external_directory", path)
        }
      }),
      { numRuns: 10_000 },
    )
  })
})

/** Segment-by-segment walk: a relative path escapes as soon as it climbs above its start. */
function oracle(location: string, path: string) {
  const rootParts = location.split("/").filter(Boolean)
  const relative = !path.startsWith("/")
  const parts = relative ? [...rootParts] : []
  let depth = 0
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      depth -= 1
      if (relative && depth < 0) return "relative_escape" as const
      parts.pop()
    } else {
      depth += 1
      parts.push(segment)
    }
  }
  const inside = parts.length >= rootParts.length && rootParts.every((part, i) => parts[i] === part)
  return {
    inside,
    absolute: `/${parts.join("/")}`,
    resource: parts.slice(rootParts.length).join("/") || ".",
  }
}
