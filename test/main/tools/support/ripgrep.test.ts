import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { run } from "@main/tools/support/process"
import {
  binary,
  filesArgs,
  grepArgs,
  listFiles,
  MAX_LINE_LENGTH,
  parseJsonLine,
  searchLines,
  SearchError,
  Splitter,
} from "@main/tools/support/ripgrep"
import { makeTempDir } from "../../../support/temp"

// Layout (B = a fresh temp dir, R = B/root is the search root):
//   B/outside/secret.txt ("SECRET outside")   B/sentinel (created only if a preprocessor ever runs)
//   R/src/a.ts ("SECRET inside")  R/src/deep/b.ts  R/.hidden.ts  R/.git/config  R/pre.sh (touches B/sentinel)
//   R/link-out -> B/outside       R/file-out -> B/outside/secret.txt
function fixture() {
  const base = makeTempDir()
  const root = join(base, "root")
  const outside = join(base, "outside")
  for (const dir of [root, outside, join(root, "src", "deep"), join(root, ".git")]) mkdirSync(dir, { recursive: true })
  writeFileSync(join(outside, "secret.txt"), "SECRET outside\n")
  writeFileSync(join(root, "src", "a.ts"), "SECRET inside\n")
  writeFileSync(join(root, "src", "deep", "b.ts"), "nothing here\n")
  writeFileSync(join(root, ".hidden.ts"), "SECRET hidden\n")
  writeFileSync(join(root, ".git", "config"), "SECRET in git\n")
  const sentinel = join(base, "sentinel")
  writeFileSync(join(root, "pre.sh"), `#!/bin/sh\ntouch '${sentinel}'\ncat "$1"\n`)
  chmodSync(join(root, "pre.sh"), 0o755)
  symlinkSync(outside, join(root, "link-out"))
  symlinkSync(join(outside, "secret.txt"), join(root, "file-out"))
  return { base, root, outside, sentinel }
}

const userStrings = fc.oneof(
  fc.string(),
  fc.constantFrom("--pre=./pre.sh", "-L", "--follow", "--", "-e", "--files", "--config=x", "-", "--glob=*", "!*"),
  fc.string().map((tail) => `--${tail}`),
)
const absolutePaths = fc
  .array(fc.stringMatching(/^[^/\0]{1,8}$/u), { maxLength: 4 })
  .map((parts) => `/${parts.join("/")}`)

/**
 * Reads argv the way rg does and checks where each user-supplied string sits: right after `-e`
 * (a pattern), inside a single `--glob=` argument, or after `--` (paths). Every other argument
 * must be one of our own fixed flags, so never `-L`, `--follow`, `--pre`, a config file, …
 */
function assertHardened(argv: ReadonlyArray<string>, user: { values: string[]; globs: string[]; paths: string[] }) {
  assert.strictEqual(argv[0], "--no-config")
  const globs: string[] = []
  let index = 0
  for (; index < argv.length; index++) {
    const flag = argv[index]!
    if (flag === "--") break
    if (flag === "-e") {
      assert.include(user.values, argv[++index]!)
      continue
    }
    if (flag.startsWith("--glob=")) {
      globs.push(flag.slice("--glob=".length))
      continue
    }
    assert.include(["--no-config", "--no-follow", "--hidden", "--sort=path", "--files", "--null", "--json"], flag)
  }
  assert.strictEqual(argv[index], "--")
  assert.deepStrictEqual(argv.slice(index + 1), user.paths)
  assert.deepStrictEqual(globs, [...user.globs, "!**/.git/**"])
}

describe("tools/support/ripgrep", () => {
  describe("argv", () => {
    it("keeps every user string out of flag position in a file listing", () => {
      fc.assert(
        fc.property(userStrings, absolutePaths, (glob, root) => {
          assertHardened(filesArgs({ root, glob }), { values: [], globs: [glob], paths: [root] })
          assert.include(filesArgs({ root, glob }), "--null")
        }),
      )
    })

    it("keeps every user string out of flag position in a content search", () => {
      fc.assert(
        fc.property(
          userStrings,
          fc.option(userStrings, { nil: undefined }),
          absolutePaths,
          (pattern, include, path) => {
            const argv = grepArgs({ path, pattern, include })
            assertHardened(argv, { values: [pattern], globs: include === undefined ? [] : [include], paths: [path] })
            assert.include(argv, "--json")
            assert.strictEqual(argv[argv.indexOf("-e") + 1], pattern)
          },
        ),
      )
    })

    it("refuses a search path that is not absolute", () => {
      assert.throws(() => filesArgs({ root: "relative/dir", glob: "*" }), TypeError)
      assert.throws(() => grepArgs({ path: "-L", pattern: "x" }), TypeError)
    })
  })

  describe("parsing", () => {
    it("reassembles records that span chunks", () => {
      fc.assert(
        fc.property(
          fc.array(fc.uint8Array({ minLength: 1, maxLength: 20 }).map((bytes) => bytes.map((b) => b || 1))),
          fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1 }),
          (records, sizes) => {
            const stream = Buffer.concat(records.flatMap((record) => [Buffer.from(record), Buffer.from([0])]))
            const splitter = new Splitter(0)
            const out: Buffer[] = []
            for (let offset = 0, turn = 0; offset < stream.length; turn++) {
              const size = sizes[turn % sizes.length]!
              out.push(...splitter.push(stream.subarray(offset, offset + size)))
              offset += size
            }
            assert.deepStrictEqual(
              out.map((record) => [...record]),
              records.map((record) => [...record]),
            )
            assert.isUndefined(splitter.rest())
          },
        ),
      )
    })

    it("reads matches, skips other messages and rejects what rg never prints", () => {
      const match = (path: object, lines: object) =>
        JSON.stringify({ type: "match", data: { path, lines, line_number: 7, absolute_offset: 0, submatches: [] } })
      assert.deepStrictEqual(parseJsonLine(match({ text: "/r/a:b\nc.ts" }, { text: "hit\r\n" })), {
        path: "/r/a:b\nc.ts",
        line: 7,
        text: "hit",
      })
      assert.deepStrictEqual(
        parseJsonLine(
          match({ bytes: Buffer.from("/r/x").toString("base64") }, { bytes: Buffer.from("y\n").toString("base64") }),
        ),
        { path: "/r/x", line: 7, text: "y" },
      )
      const long = parseJsonLine(match({ text: "/r/x" }, { text: `${"z".repeat(5000)}\n` }))
      assert.strictEqual(typeof long === "object" && long.text, `${"z".repeat(MAX_LINE_LENGTH)}...`)
      assert.isUndefined(parseJsonLine(JSON.stringify({ type: "begin", data: { path: { text: "/r/x" } } })))
      assert.strictEqual(parseJsonLine("not json"), "invalid")
      assert.strictEqual(parseJsonLine(JSON.stringify({ type: "match", data: {} })), "invalid")
    })
  })

  describe("real binary", () => {
    it.effect("treats a pattern spelled like --pre as a pattern and never runs the preprocessor", () =>
      Effect.gen(function* () {
        const { root, sentinel } = fixture()
        const matches = yield* searchLines({ cwd: root, path: root, pattern: "--pre=./pre.sh" })
        assert.deepStrictEqual(matches, [])
        // The same argument where rg reads flags does run it: the test can see the difference.
        yield* run({
          file: binary,
          args: ["--no-config", "--pre=./pre.sh", "SECRET", "src"],
          cwd: root,
          maxBytes: { stdout: 0, stderr: 0 },
        })
        assert.isTrue(existsSync(sentinel))
      }),
    )

    it.effect("ignores a RIPGREP_CONFIG_PATH that injects --pre", () =>
      Effect.gen(function* () {
        const { base, root, sentinel } = fixture()
        const config = join(base, "ripgreprc")
        writeFileSync(config, `--pre=${join(root, "pre.sh")}\n`)
        // Our argv alone, with the variable still in the environment.
        const result = yield* run({
          file: binary,
          args: grepArgs({ path: root, pattern: "SECRET" }),
          cwd: root,
          env: { ...process.env, RIPGREP_CONFIG_PATH: config },
          maxBytes: { stdout: 1024 * 1024, stderr: 8192 },
        })
        assert.strictEqual(result.exitCode, 0)
        assert.isFalse(existsSync(sentinel))
        // Without --no-config the same environment runs it.
        yield* run({
          file: binary,
          args: ["-e", "SECRET", "--", root],
          cwd: root,
          env: { ...process.env, RIPGREP_CONFIG_PATH: config },
          maxBytes: { stdout: 0, stderr: 0 },
        })
        assert.isTrue(existsSync(sentinel))
      }),
    )

    it.effect("finds nothing through symbolic links that lead outside the root", () =>
      Effect.gen(function* () {
        const { root, outside } = fixture()
        const matches = yield* searchLines({ cwd: root, path: root, pattern: "SECRET" })
        assert.deepStrictEqual(
          matches.map((match) => match.path),
          [join(root, ".hidden.ts"), join(root, "src", "a.ts")],
        )
        const files = yield* listFiles({ root, glob: "**" })
        assert.isFalse(files.some((file) => file.includes("outside") || file.startsWith(outside)))
        assert.deepStrictEqual(files, [
          join(root, ".hidden.ts"),
          join(root, "pre.sh"),
          join(root, "src", "a.ts"),
          join(root, "src", "deep", "b.ts"),
        ])
      }),
    )

    it.effect("matches globs relative to the root and never outside it", () =>
      Effect.gen(function* () {
        const { root } = fixture()
        assert.deepStrictEqual(yield* listFiles({ root, glob: "../**" }), [])
        assert.deepStrictEqual(yield* listFiles({ root, glob: "../outside/*" }), [])
        assert.deepStrictEqual(yield* listFiles({ root, glob: "src/*.ts" }), [join(root, "src", "a.ts")])
        assert.deepStrictEqual(yield* listFiles({ root, glob: "*.ts" }), [
          join(root, ".hidden.ts"),
          join(root, "src", "a.ts"),
          join(root, "src", "deep", "b.ts"),
        ])
      }),
    )

    it.effect("parses file names holding newlines and colons exactly", () =>
      Effect.gen(function* () {
        const { root } = fixture()
        const odd = join(root, "src", "odd\nname:1:2.txt")
        writeFileSync(odd, "SECRET odd\n")
        assert.include(yield* listFiles({ root, glob: "*.txt" }), odd)
        const matches = yield* searchLines({ cwd: root, path: root, pattern: "SECRET odd" })
        assert.deepStrictEqual(matches, [{ path: odd, line: 1, text: "SECRET odd" }])
      }),
    )

    it.effect("stops at the limit and fails on an invalid regex or glob", () =>
      Effect.gen(function* () {
        const { root } = fixture()
        writeFileSync(join(root, "many.txt"), "hit\n".repeat(50_000))
        const limited = yield* searchLines({ cwd: root, path: root, pattern: "hit", limit: 3 })
        assert.deepStrictEqual(
          limited.map((match) => match.line),
          [1, 2, 3],
        )
        assert.instanceOf(yield* Effect.flip(searchLines({ cwd: root, path: root, pattern: "(" })), SearchError)
        assert.instanceOf(yield* Effect.flip(listFiles({ root, glob: "{a" })), SearchError)
      }),
    )
  })
})
