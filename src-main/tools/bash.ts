import { realpathSync, statSync } from "node:fs"
import { dirname, isAbsolute, join, resolve } from "node:path"
import { Effect, Schema } from "effect"
import { Config } from "@core/config/Config"
import { LocationMutation } from "@core/location/LocationMutation"
import { PermissionV2 } from "@core/permission/PermissionV2"
import type { Sessions } from "@core/session/Sessions"
import { Tool } from "@core/tool/Tool"
import { run, type SpawnError } from "./support/process"
import { explainedFailure } from "./support/failure"
import { assertAction, assertExternal } from "./support/permission"

export * as BashTool from "./bash"

// SPEC-CORE E.5. The command string is the resource a person approves, exactly as the model wrote
// it. Bash is not a sandbox: once approved, the shell can reach anything the host user can. What
// we do guarantee is the order (workdir resolved, external_directory, then bash, then a fresh
// look at the workdir) and that a timeout or interruption ends every process the command started.

export const name = "bash"
export const DEFAULT_TIMEOUT_MS = 2 * 60 * 1_000
export const MAX_TIMEOUT_MS = 10 * 60 * 1_000
/** In-memory capture per stream (stdout and stderr each); more is read and dropped. */
export const MAX_CAPTURE_BYTES = 1024 * 1024

export const SANDBOX_NOTICE =
  "Bash is not sandboxed: the spawned shell runs with the host user's filesystem, process, and network authority."
export const CAPTURE_NOTICE = "[output capture truncated at the in-memory safety limit]"
export const NO_OUTPUT = "(no output)"
export const TIMED_OUT_STATUS = "Command timed out before completion."

export const timeoutNotice = (ms: number) =>
  `Command exceeded timeout of ${ms} ms. Retry with a larger timeout if the command is expected to take longer.`

export const externalWarning = (directory: string) =>
  `Command argument references external directory ${directory}. Bash runs with host-user filesystem, process, and network authority; this scan is advisory only.`

const description = [
  "Runs one shell command string and returns its combined stdout and stderr followed by the exit code.",
  SANDBOX_NOTICE,
  "The command runs in the Location by default; `workdir` names another directory (a relative one resolves",
  "from the Location; a directory outside it needs external_directory approval first).",
  `\`timeout\` is in milliseconds: default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS}; on timeout every`,
  "process the command started is terminated.",
  "Uses the configured `shell`, otherwise /bin/sh (COMSPEC or cmd.exe on Windows); stdin is empty.",
  `At most ${MAX_CAPTURE_BYTES} bytes of stdout and of stderr are kept; a notice says when more was dropped.`,
  "A non-zero exit code is reported, not treated as a failure.",
  "Absolute paths in the command that lie outside the working directory are listed as warnings; that",
  "scan is advisory and never decides anything.",
].join(" ")

export const Input = Schema.Struct({
  command: Schema.String.annotate({ description: "The shell command string to run" }),
  workdir: Schema.optional(
    Schema.String.annotate({
      description: "Working directory. Defaults to the Location; a relative path resolves from the Location.",
    }),
  ),
  timeout: Schema.optional(
    Schema.Int.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(MAX_TIMEOUT_MS)).annotate({
      description: `Timeout in milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS})`,
    }),
  ),
})
export type Input = typeof Input.Type

export const Output = Schema.Struct({
  command: Schema.String,
  /** The canonical directory the command ran in. */
  cwd: Schema.String,
  /** `null` when the shell ended through a signal (always after a timeout). */
  exitCode: Schema.NullOr(Schema.Number),
  /** The captured text (stdout and stderr interleaved), with the capture and timeout notices. */
  output: Schema.String,
  /** Some output was dropped at the in-memory capture limit. */
  truncated: Schema.Boolean,
  stdoutTruncated: Schema.optional(Schema.Boolean),
  stderrTruncated: Schema.optional(Schema.Boolean),
  timedOut: Schema.optional(Schema.Boolean),
  /** The signal that ended the shell, when it did not exit by itself and did not time out. */
  signal: Schema.optional(Schema.String),
  warnings: Schema.optional(Schema.Array(Schema.String)),
})
export type Output = typeof Output.Type

/** Whitespace-separated words, with quoted stretches kept inside their word. */
const tokens = (command: string) => command.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/gu) ?? []

function canonical(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

/**
 * The directories outside `cwd` that absolute words of the command point into, as `<dir>/*`
 * patterns (SPEC-CORE E.5). Lexical and best-effort: it never fails and decides nothing.
 */
export function externalDirectories(command: string, cwd: string): ReadonlyArray<string> {
  const directories = new Set<string>()
  for (const token of tokens(command)) {
    const value = token.replace(/["']/gu, "").replace(/[;,|&]+$/u, "")
    if (!isAbsolute(value) || value.includes("\0")) continue
    const target = canonical(value)
    if (LocationMutation.contains(cwd, target)) continue
    directories.add(join(canonical(dirname(target)), "*").replaceAll("\\", "/"))
  }
  return [...directories]
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

function shellInvocation(shell: string | undefined, command: string) {
  if (process.platform === "win32") {
    const file = shell ?? process.env.COMSPEC ?? "cmd.exe"
    return { file, args: /cmd(\.exe)?$/iu.test(file) ? ["/d", "/s", "/c", command] : ["-c", command] }
  }
  return { file: shell ?? "/bin/sh", args: ["-c", command] }
}

function statusLine(output: Output): string {
  if (output.timedOut) return TIMED_OUT_STATUS
  if (output.exitCode === null) return `Command terminated by signal ${output.signal ?? "unknown"}.`
  return `Command exited with code ${output.exitCode}.`
}

/** The model's text: output, a blank line, any warnings, then the status line. */
export function modelText(output: Output): string {
  const warnings = output.warnings?.length
    ? `Warnings:\n${output.warnings.map((warning) => `- ${warning}`).join("\n")}\n\n`
    : ""
  return `${output.output}\n\n${warnings}${statusLine(output)}`
}

type Failure =
  | Tool.ToolFailure
  | LocationMutation.PathError
  | PermissionV2.BlockedError
  | PermissionV2.CorrectedError
  | Sessions.NotFoundError
  | SpawnError

const toFailure = (error: Failure, input: Input) =>
  explainedFailure(error, `Unable to execute command: ${input.command}`)

export const make = Effect.gen(function* () {
  const permission = yield* PermissionV2.Service
  const mutation = yield* LocationMutation.Service
  const config = yield* Config.Service

  const execute = Effect.fn("BashTool.execute")(
    function* (input: Input, context: Tool.Context) {
      const target = yield* mutation.resolve({ path: input.workdir ?? ".", kind: "directory" })
      yield* assertExternal(permission, context, target)
      const warnings = externalDirectories(input.command, target.canonical).map(externalWarning)
      yield* assertAction(permission, context, {
        action: name,
        resources: [input.command],
        save: [input.command],
        metadata: { workdir: target.resource, ...(warnings.length > 0 ? { warnings } : {}) },
      })
      // The directory may have been replaced while the person was deciding.
      if (!isDirectory(target.canonical))
        return yield* new Tool.ToolFailure({ message: `Working directory is not a directory: ${target.canonical}` })
      const timeout = input.timeout ?? DEFAULT_TIMEOUT_MS
      const shell = shellInvocation(config.config.shell, input.command)
      const result = yield* run({
        ...shell,
        cwd: target.canonical,
        timeoutMs: timeout,
        maxBytes: { stdout: MAX_CAPTURE_BYTES, stderr: MAX_CAPTURE_BYTES },
      })
      const truncated = result.stdoutTruncated || result.stderrTruncated
      const captured = result.output.length > 0 ? result.output : NO_OUTPUT
      const kept = truncated ? `${captured}\n\n${CAPTURE_NOTICE}` : captured
      // Partial output is kept ahead of the timeout notice: what ran before the limit still matters.
      const output = result.timedOut
        ? result.output.length > 0 || truncated
          ? `${kept}\n\n${timeoutNotice(timeout)}`
          : timeoutNotice(timeout)
        : kept
      return {
        command: input.command,
        cwd: target.canonical,
        exitCode: result.exitCode,
        output,
        truncated,
        ...(result.stdoutTruncated ? { stdoutTruncated: true } : {}),
        ...(result.stderrTruncated ? { stderrTruncated: true } : {}),
        ...(result.timedOut ? { timedOut: true } : {}),
        ...(!result.timedOut && result.exitCode === null && result.signal ? { signal: result.signal } : {}),
        ...(warnings.length > 0 ? { warnings } : {}),
      } satisfies Output
    },
    (effect, input) => Effect.mapError(effect, (error) => toFailure(error, input)),
  )

  return Tool.make({
    description,
    input: Input,
    output: Output,
    execute,
    toModelOutput: ({ output }) => [{ type: "text", text: modelText(output) }],
  })
})
