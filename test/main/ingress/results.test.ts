import { assert, describe, it } from "@effect/vitest"
import { annotations, declinedText, outputPathsKey, toCallToolResult, toMcpTool } from "@main/ingress/results"

describe("results", () => {
  it("maps text, JSON, files and errors to MCP content", () => {
    assert.deepStrictEqual(toCallToolResult({ result: { type: "text", value: "hi" } }), {
      content: [{ type: "text", text: "hi" }],
    })
    assert.deepStrictEqual(toCallToolResult({ result: { type: "error", value: "boom" } }), {
      content: [{ type: "text", text: "boom" }],
      isError: true,
    })
    assert.deepStrictEqual(toCallToolResult({ result: { type: "json", value: { count: 2 } } }), {
      content: [{ type: "text", text: '{\n  "count": 2\n}' }],
      structuredContent: { count: 2 },
    })
    // MCP's structuredContent is an object: an array stays text only.
    assert.deepStrictEqual(toCallToolResult({ result: { type: "json", value: [1, 2] } }), {
      content: [{ type: "text", text: "[\n  1,\n  2\n]" }],
    })
    const content = toCallToolResult({
      result: {
        type: "content",
        value: [
          { type: "text", text: "an image:" },
          { type: "file", uri: "data:image/png;base64,iVBORw0K", mime: "image/png" },
          { type: "file", uri: "data:audio/wav;base64,UklGRg==", mime: "audio/wav" },
          { type: "file", uri: "data:application/pdf;base64,JVBERi0=", mime: "application/pdf", name: "a b.pdf" },
        ],
      },
    })
    assert.deepStrictEqual(content.content, [
      { type: "text", text: "an image:" },
      { type: "image", data: "iVBORw0K", mimeType: "image/png" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "attachment:a%20b.pdf", mimeType: "application/pdf", blob: "JVBERi0=" } },
    ])
  })

  it("names the files holding a previewed output in _meta", () => {
    const result = toCallToolResult({
      result: { type: "text", value: "head\n\n... output truncated; full content saved to /d/tool_1 ...\n\ntail" },
      outputPaths: ["/d/tool_1"],
    })
    assert.deepStrictEqual(result._meta, { [outputPathsKey]: ["/d/tool_1"] })
  })

  it("tells the model to stop and wait after a decline", () => {
    assert.strictEqual(
      declinedText("The user rejected permission to use this specific tool call."),
      "The user rejected permission to use this specific tool call. The user declined this tool call in Gatehouse. Stop now and wait for the user's instructions; do not retry this call or work around it.",
    )
  })

  it("advertises no output schema and annotates only the tools it knows", () => {
    const definition = {
      name: "bash",
      description: "Runs a command",
      inputSchema: { type: "object", properties: {} },
      outputSchema: { type: "object" },
    }
    assert.deepStrictEqual(toMcpTool(definition), {
      name: "bash",
      description: "Runs a command",
      inputSchema: { type: "object", properties: {} },
      annotations: annotations.bash!,
    })
    assert.notProperty(toMcpTool({ ...definition, name: "connector_tool" }), "annotations")
  })
})
