/** What a command may touch of its process: lines out, the environment and the working directory. */
export interface Io {
  readonly stdout: (line: string) => void
  readonly stderr: (line: string) => void
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
}

/** The command line is wrong; the message includes the usage to show. Exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError"
}
