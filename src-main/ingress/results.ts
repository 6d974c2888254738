import type { CallToolResult, ContentBlock, Tool as McpTool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js"
import type { Tool } from "@core/tool/Tool"
import type { ToolRegistry } from "@core/tool/ToolRegistry"

// How Gatehouse's tools look to an MCP client, and how their results come back: pure mappings
// between the registry's definitions and settlements and the MCP `tools/list` / `tools/call` shapes.

/**
 * Risk hints per built-in (MCP tool annotations). Clients use them for their own defaults and
 * pills; they are hints, never enforcement: every call is still judged by Gatehouse's rules.
 * Tools without an entry (connectors) carry none, which MCP reads as "may do anything".
 */
export const annotations: Readonly<Record<string, ToolAnnotations>> = {
  read: { readOnlyHint: true, openWorldHint: false },
  glob: { readOnlyHint: true, openWorldHint: false },
  grep: { readOnlyHint: true, openWorldHint: false },
  // They change nothing here, but reach the network.
  webfetch: { readOnlyHint: true, openWorldHint: true },
  websearch: { readOnlyHint: true, openWorldHint: true },
  skill: { readOnlyHint: true, openWorldHint: false },
  question: { readOnlyHint: true, openWorldHint: false },
  todowrite: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  write: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  edit: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  apply_patch: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  // Not sandboxed: the shell has the user's authority, network included.
  bash: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
}

/**
 * One `tools/list` entry. No `outputSchema`: clients that see one demand `structuredContent` on
 * every result and validate it, but a bounded (previewed) output is text, not the schema's shape.
 */
export function toMcpTool(definition: Tool.Definition): McpTool {
  const hints = annotations[definition.name]
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema as McpTool["inputSchema"],
    ...(hints ? { annotations: hints } : {}),
  }
}

/** Where the full text of a previewed output is, in the result's `_meta`. */
export const outputPathsKey = "gatehouse/outputPaths"

/** The result of a call the person declined (reject without feedback, or a dismissed question). */
export const declinedText = (reason: string) =>
  `${reason} The user declined this tool call in Gatehouse. Stop now and wait for the user's instructions; do not retry this call or work around it.`

/** The result of every call in a session stopped from Gatehouse, and of calls it interrupted. */
export const STOPPED_TEXT =
  "This session was stopped in Gatehouse, so it accepts no more tool calls. Reconnect the MCP client to start a new session."

/** The result of a call interrupted because Gatehouse is shutting down. */
export const SHUTTING_DOWN_TEXT = "Tool execution interrupted: Gatehouse is shutting down."

/** An error result the model reads. */
export const errorResult = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true })

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A file part's `data:` URI as MCP content: images and audio as such, anything else embedded. */
function fileContent(part: Extract<Tool.ModelContent, { type: "file" }>): ContentBlock {
  const match = /^data:([^;,]*)(?:;[^,]*)?;base64,(.*)$/s.exec(part.uri)
  if (!match) return { type: "text", text: `[file ${part.mime}${part.name ? ` ${part.name}` : ""}]` }
  const data = match[2]!
  const mimeType = part.mime || match[1] || "application/octet-stream"
  if (mimeType.startsWith("image/")) return { type: "image", data, mimeType }
  if (mimeType.startsWith("audio/")) return { type: "audio", data, mimeType }
  return {
    type: "resource",
    resource: { uri: `attachment:${encodeURIComponent(part.name ?? "file")}`, mimeType, blob: data },
  }
}

/**
 * A settlement as the MCP result: text as text, files as image/audio/resource content, a JSON
 * result as `structuredContent` (when it is an object) plus its text, and an error result with
 * `isError`. A previewed output is the preview text (which names the file holding the rest), and
 * the file's path is also in `_meta`.
 */
export function toCallToolResult(settlement: ToolRegistry.Settlement): CallToolResult {
  const meta = settlement.outputPaths?.length ? { _meta: { [outputPathsKey]: [...settlement.outputPaths] } } : {}
  const result = settlement.result
  switch (result.type) {
    case "error":
      return { ...errorResult(result.value), ...meta }
    case "text":
      return { content: [{ type: "text", text: result.value }], ...meta }
    case "json":
      return {
        content: [{ type: "text", text: JSON.stringify(result.value, null, 2) ?? "null" }],
        ...(isPlainObject(result.value) ? { structuredContent: result.value } : {}),
        ...meta,
      }
    case "content":
      return {
        content: result.value.map((part): ContentBlock =>
          part.type === "text" ? { type: "text", text: part.text } : fileContent(part),
        ),
        ...meta,
      }
  }
}
