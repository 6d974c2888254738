import { Effect, Layer } from "effect"
import { HttpServer } from "@main/web/HttpServer"
import { ContractSocket } from "@main/web/ContractSocket"
import { serverFileLayer } from "@main/web/Headless"
import { McpIngress } from "./McpIngress"

/**
 * The loopback server inside the Electron app: the same HttpServer as the headless host, with
 * `/mcp` and the contract's WebSocket (supervisor token; the window itself uses IPC, this is for
 * `gatehouse run`) and `server.json`, so MCP clients and the `gatehouse` command find the app as
 * they find the headless host. It serves no UI files. A port that is taken (for
 * example by a headless host on the same port) leaves the app running without MCP, with a warning.
 */
export const appServerLayer = (options: McpIngress.Options = {}) =>
  Layer.effectDiscard(
    Layer.build(
      Layer.mergeAll(McpIngress.layer(options), ContractSocket.layer, serverFileLayer).pipe(
        Layer.provide(HttpServer.layer()),
      ),
    ).pipe(
      Effect.asVoid,
      Effect.catchTag("HttpServer.ListenError", (error) =>
        Effect.logWarning(`MCP ingress is off: ${error.message}. Set server.port in config.jsonc to use another port.`),
      ),
    ),
  )
