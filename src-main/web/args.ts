/** What `serve` accepts on its command line. */
export interface ServeArgs {
  /** `--port N` (or `--port=N`); 0 picks any free port. Absent: `server.port` from config, else the default. */
  readonly port?: number
}

export const serveUsage = "Usage: serve [--port N]   (N in 0..65535; 0 picks any free port)"

/** Parses `serve`'s arguments; throws an Error whose message says what is wrong. */
export function parseServeArgs(argv: ReadonlyArray<string>): ServeArgs {
  let port: number | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    let value: string | undefined
    if (arg === "--port") value = argv[++i]
    else if (arg.startsWith("--port=")) value = arg.slice("--port=".length)
    else throw new Error(`Unknown argument ${JSON.stringify(arg)}. ${serveUsage}`)
    if (value === undefined || !/^\d{1,5}$/.test(value) || Number(value) > 65535) {
      throw new Error(`--port needs a number from 0 to 65535, got ${JSON.stringify(value ?? "")}. ${serveUsage}`)
    }
    port = Number(value)
  }
  return port === undefined ? {} : { port }
}
