import type { Readable, Writable } from "node:stream"
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import {
  ErrorCode,
  isInitializeRequest,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js"

// `gatehouse mcp`: a stdio MCP server for clients that only spawn processes, forwarding every
// JSON-RPC message unchanged to the running Gatehouse's `/mcp` over Streamable HTTP and every
// message from there back to stdout. Gatehouse does all the MCP work; the bridge only carries it
// (plus the protocol version header that Streamable HTTP needs after `initialize`).

export interface BridgeOptions {
  /** `http://127.0.0.1:<port>/mcp?project=…&agent=…` */
  readonly endpoint: URL
  readonly agentToken: string
  readonly stdin: Readable
  readonly stdout: Writable
  /** Diagnostics (stderr): stdout belongs to the protocol. */
  readonly log: (line: string) => void
}

/** The JSON-RPC error Gatehouse answered with, when a failed POST carries one. */
function errorOf(error: unknown): { readonly code: number; readonly message: string } {
  const text = error instanceof Error ? error.message : String(error)
  const start = text.indexOf("{")
  if (start >= 0) {
    try {
      const body = JSON.parse(text.slice(start)) as { error?: { code?: unknown; message?: unknown } }
      if (typeof body.error?.message === "string")
        return {
          code: typeof body.error.code === "number" ? body.error.code : ErrorCode.ConnectionClosed,
          message: body.error.message,
        }
    } catch {
      // not a JSON-RPC body: use the transport's message
    }
  }
  const status = error instanceof StreamableHTTPError && error.code !== undefined ? ` (HTTP ${error.code})` : ""
  return { code: ErrorCode.ConnectionClosed, message: `Cannot reach Gatehouse${status}: ${text}` }
}

/** Runs the bridge until stdin ends; then ends the MCP session (HTTP DELETE) and resolves. */
export async function runBridge(options: BridgeOptions): Promise<void> {
  const http = new StreamableHTTPClientTransport(options.endpoint, {
    requestInit: { headers: { Authorization: `Bearer ${options.agentToken}` } },
  })
  const stdio = new StdioServerTransport(options.stdin, options.stdout)
  const initializing = new Set<RequestId>()

  const reply = (message: JSONRPCMessage) =>
    stdio.send(message).catch((error: unknown) => options.log(`Cannot write to stdout: ${String(error)}`))

  // Each POST starts once the one before has its response headers: messages keep their order, and
  // nothing after `initialize` leaves before the session id it needs has arrived. (A send resolves
  // when its response starts, not when a long call ends, so calls still run side by side.)
  let previous: Promise<void> = Promise.resolve()
  stdio.onmessage = (message) => {
    if (isInitializeRequest(message) && isJSONRPCRequest(message)) initializing.add(message.id)
    previous = previous.then(() =>
      http.send(message).catch((error: unknown) => {
        if (isJSONRPCRequest(message)) void reply({ jsonrpc: "2.0", id: message.id, error: errorOf(error) })
        else options.log(`Gatehouse refused a message: ${errorOf(error).message}`)
      }),
    )
  }
  stdio.onerror = (error) => options.log(`Invalid message on stdin: ${error.message}`)

  http.onmessage = (message) => {
    if (isJSONRPCResultResponse(message) && initializing.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion
      if (typeof version === "string") http.setProtocolVersion(version)
    }
    void reply(message)
  }
  http.onerror = (error) => options.log(`Gatehouse connection: ${error.message}`)

  await http.start()
  await stdio.start()

  await new Promise<void>((resolve) => {
    options.stdin.once("end", resolve)
    options.stdin.once("close", resolve)
  })
  // What the client sent before it left still goes out; then ending the session withdraws whatever
  // still waits in the inbox for this client.
  await previous
  await http.terminateSession().catch(() => undefined)
  await http.close().catch(() => undefined)
  await stdio.close().catch(() => undefined)
}
