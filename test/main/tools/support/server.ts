import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

// A real HTTP server on 127.0.0.1 for the web tools' tests: each test routes requests with a plain
// node:http handler and asserts on what arrived. Closed (connections included) with the scope.

export interface Recorded {
  readonly method: string
  readonly path: string
  /** Lower-cased names, as node:http gives them. */
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface LocalServer {
  readonly port: number
  /** `http://127.0.0.1:<port><path>` */
  readonly url: (path: string) => string
  /** Every request so far, in arrival order (recorded once its body has arrived). */
  readonly requests: ReadonlyArray<Recorded>
}

export type Handler = (request: Recorded, res: ServerResponse, raw: IncomingMessage) => void

export const localServer = (handler: Handler) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ server: ReturnType<typeof createServer>; served: LocalServer }>((resolve) => {
          const requests: Recorded[] = []
          const server = createServer((req, res) => {
            const chunks: Buffer[] = []
            req.on("data", (chunk: Buffer) => chunks.push(chunk))
            req.on("end", () => {
              const recorded: Recorded = {
                method: req.method ?? "",
                path: req.url ?? "",
                headers: req.headers,
                body: Buffer.concat(chunks).toString("utf8"),
              }
              requests.push(recorded)
              handler(recorded, res, req)
            })
          })
          server.listen(0, "127.0.0.1", () => {
            const port = (server.address() as AddressInfo).port
            resolve({ server, served: { port, url: (path) => `http://127.0.0.1:${port}${path}`, requests } })
          })
        }),
    ),
    ({ server }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          }),
      ),
  ).pipe(Effect.map(({ served }) => served))
