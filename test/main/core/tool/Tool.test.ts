import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Schema } from "effect"
import { Tool } from "@core/tool/Tool"
import { newId } from "@core/id/Identifier"

const context: Tool.Context = {
  sessionID: newId.session(),
  agent: "build",
  assistantMessageID: "msg_1",
  toolCallID: "call-1",
}
const call = (name: string, input: unknown): Tool.Call => ({ id: "call-1", name, input })

const echo = Tool.make({
  description: "Echo the text back",
  input: Schema.Struct({ text: Schema.String }),
  output: Schema.String,
  execute: (input) => Effect.succeed(input.text),
})

describe("Tool", () => {
  it("returns an empty frozen carrier that reveals nothing about the tool", () => {
    assert.deepStrictEqual(Object.keys(echo), [])
    assert.deepStrictEqual(Reflect.ownKeys(echo), [])
    assert.isTrue(Object.isFrozen(echo))
    assert.isTrue(Tool.isTool(echo))
    assert.isFalse(Tool.isTool({}))
    assert.isFalse(Tool.isTool(Object.freeze({})))
    assert.isFalse(Tool.isTool("echo"))
  })

  it("rejects values it did not make with Invalid Tool value", () => {
    assert.throws(() => Tool.definition("echo", {} as Tool.AnyTool), TypeError, "Invalid Tool value")
    assert.throws(() => Tool.permission(null as unknown as Tool.AnyTool, "echo"), TypeError, "Invalid Tool value")
  })

  it("derives the model definition from the schemas and reuses it for the same name", () => {
    const first = Tool.definition("echo", echo)
    assert.strictEqual(Tool.definition("echo", echo), first)
    assert.notStrictEqual(Tool.definition("say", echo), first)
    assert.strictEqual(first.name, "echo")
    assert.strictEqual(first.description, "Echo the text back")
    assert.deepInclude(first.inputSchema, { type: "object", required: ["text"] })
    assert.deepStrictEqual(first.outputSchema, { type: "string" })
    assert.isTrue(Object.isFrozen(first))
  })

  it("attaches shared schema definitions under $defs", () => {
    const Name = Schema.String.annotate({ identifier: "Name" })
    const tool = Tool.make({
      description: "Greets",
      input: Schema.Struct({ first: Name, last: Name }),
      output: Schema.Struct({ greeting: Name }),
      execute: (input) => Effect.succeed({ greeting: `Hello ${input.first}` }),
    })
    const definition = Tool.definition("greet", tool)
    assert.property(definition.inputSchema, "$defs")
    assert.deepInclude(definition.inputSchema.$defs as object, { Name: { type: "string" } })
    assert.property(definition.outputSchema, "$defs")
    assert.notProperty(Tool.definition("echo", echo).inputSchema, "$defs")
  })

  it("decorates a new carrier with a permission action and leaves the original alone", () => {
    const decorated = Tool.withPermission(echo, "edit")
    assert.notStrictEqual(decorated, echo)
    assert.deepStrictEqual(Object.keys(decorated), [])
    assert.isTrue(Object.isFrozen(decorated))
    assert.strictEqual(Tool.permission(decorated, "write"), "edit")
    assert.strictEqual(Tool.permission(echo, "write"), "write")
    assert.strictEqual(Tool.permission(Tool.withPermission(decorated, "bash"), "x"), "bash")
    assert.strictEqual(Tool.permission(decorated, "write"), "edit")
  })

  it.effect("settles a string output as one text part with the string as structured output", () =>
    Effect.gen(function* () {
      const output = yield* Tool.settle(echo, call("echo", { text: "hi" }), context)
      assert.deepStrictEqual(output, { structured: "hi", content: [{ type: "text", text: "hi" }] })
    }),
  )

  it.effect("settles a structured output without content when there is no projection", () =>
    Effect.gen(function* () {
      const tool = Tool.make({
        description: "Counts",
        input: Schema.Struct({}),
        output: Schema.Struct({ count: Schema.Number }),
        execute: () => Effect.succeed({ count: 3 }),
      })
      const output = yield* Tool.settle(tool, call("count", {}), context)
      assert.deepStrictEqual(output, { structured: { count: 3 }, content: [] })
      assert.deepStrictEqual(Tool.toResultValue(output), { type: "json", value: { count: 3 } })
    }),
  )

  it.effect("gives the executor the decoded input and the projection the encoded output", () =>
    Effect.gen(function* () {
      const seen: Array<unknown> = []
      const tool = Tool.make({
        description: "Doubles",
        input: Schema.Struct({ n: Schema.NumberFromString }),
        output: Schema.Struct({ doubled: Schema.NumberFromString }),
        execute: (input) => {
          seen.push(input.n)
          return Effect.succeed({ doubled: input.n * 2 })
        },
        toModelOutput: ({ input, output }) => {
          seen.push(input.n, output.doubled)
          return [{ type: "text", text: `${input.n} doubled is ${output.doubled}` }]
        },
      })
      const output = yield* Tool.settle(tool, call("double", { n: "21" }), context)
      assert.deepStrictEqual(seen, [21, 21, "42"])
      assert.deepStrictEqual(output, {
        structured: { doubled: "42" },
        content: [{ type: "text", text: "21 doubled is 42" }],
      })
    }),
  )

  it.effect("turns file parts into data URIs and keeps text parts in order", () =>
    Effect.gen(function* () {
      const tool = Tool.make({
        description: "Shows a picture",
        input: Schema.Struct({}),
        output: Schema.String,
        execute: () => Effect.succeed("aGVsbG8="),
        toModelOutput: ({ output }) => [
          { type: "text", text: "Image read successfully" },
          { type: "file", data: output, mime: "image/png", name: "dot.png" },
          { type: "file", data: output, mime: "image/gif" },
        ],
      })
      const output = yield* Tool.settle(tool, call("show", {}), context)
      assert.deepStrictEqual(output.content, [
        { type: "text", text: "Image read successfully" },
        { type: "file", uri: "data:image/png;base64,aGVsbG8=", mime: "image/png", name: "dot.png" },
        { type: "file", uri: "data:image/gif;base64,aGVsbG8=", mime: "image/gif" },
      ])
      assert.deepStrictEqual(Tool.toResultValue(output), { type: "content", value: output.content })
    }),
  )

  it.effect("refuses invalid input without calling the executor", () =>
    Effect.gen(function* () {
      let calls = 0
      const tool = Tool.make({
        description: "Echo",
        input: Schema.Struct({ text: Schema.String }),
        output: Schema.String,
        execute: (input) => Effect.sync(() => ((calls += 1), input.text)),
      })
      const failure = yield* Effect.flip(Tool.settle(tool, call("echo", { text: 1 }), context))
      assert.instanceOf(failure, Tool.ToolFailure)
      assert.strictEqual(failure._tag, "LLM.ToolFailure")
      assert.match(failure.message, /^Invalid tool input: text: /)
      const missing = yield* Effect.flip(Tool.settle(tool, call("echo", {}), context))
      assert.strictEqual(missing.message, "Invalid tool input: text: Missing key")
      assert.strictEqual(calls, 0)
    }),
  )

  it.effect("never reports success for an output that fails its schema", () =>
    Effect.gen(function* () {
      const tool = Tool.make({
        description: "Lies",
        input: Schema.Struct({}),
        output: Schema.Struct({ count: Schema.Number }),
        execute: () => Effect.succeed({ count: "three" } as unknown as { count: number }),
      })
      const failure = yield* Effect.flip(Tool.settle(tool, call("lie", {}), context))
      assert.match(failure.message, /^Tool returned an invalid value for its output schema: count: /)
    }),
  )

  it.effect("passes a ToolFailure from the executor through unchanged", () =>
    Effect.gen(function* () {
      const denied = new Tool.ToolFailure({ message: "Denied" })
      const tool = Tool.make({
        description: "Refuses",
        input: Schema.Struct({}),
        output: Schema.String,
        execute: () => Effect.fail(denied),
      })
      assert.strictEqual(yield* Effect.flip(Tool.settle(tool, call("no", {}), context)), denied)
    }),
  )

  it.effect("lets defects and interruption escape instead of turning them into failures", () =>
    Effect.gen(function* () {
      const dying = Tool.make({
        description: "Dies",
        input: Schema.Struct({}),
        output: Schema.String,
        execute: () => Effect.die("unexpected executor defect"),
      })
      const throwing = Tool.make({
        description: "Throws",
        input: Schema.Struct({}),
        output: Schema.String,
        execute: () => {
          throw new Error("thrown, not returned")
        },
      })
      const interrupted = Tool.make({
        description: "Interrupted",
        input: Schema.Struct({}),
        output: Schema.String,
        execute: () => Effect.interrupt,
      })
      const died = yield* Effect.exit(Tool.settle(dying, call("die", {}), context))
      assert.isTrue(Exit.isFailure(died) && Cause.hasDies(died.cause))
      const threw = yield* Effect.exit(Tool.settle(throwing, call("throw", {}), context))
      assert.isTrue(Exit.isFailure(threw) && Cause.hasDies(threw.cause))
      const stopped = yield* Effect.exit(Tool.settle(interrupted, call("stop", {}), context))
      assert.isTrue(Exit.isFailure(stopped) && Cause.hasInterrupts(stopped.cause))
    }),
  )

  it("accepts names of a letter then up to 63 letters, digits, _ or -", () => {
    for (const name of ["a", "read", "apply_patch", "mcp-server_tool2", `a${"b".repeat(63)}`])
      assert.isTrue(Tool.isValidName(name), name)
    for (const name of ["", "1tool", "_x", "-x", "invalid name", "a.b", "é", `a${"b".repeat(64)}`, "a\n"])
      assert.isFalse(Tool.isValidName(name), JSON.stringify(name))
  })

  it("maps one text part to text, several parts to content and no content to JSON", () => {
    const text = { type: "text" as const, text: "a" }
    assert.deepStrictEqual(Tool.toResultValue({ structured: "a", content: [text] }), { type: "text", value: "a" })
    assert.deepStrictEqual(Tool.toResultValue({ structured: null, content: [text, text] }), {
      type: "content",
      value: [text, text],
    })
    assert.deepStrictEqual(Tool.toResultValue({ structured: [1], content: [] }), { type: "json", value: [1] })
  })
})
