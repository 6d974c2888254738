import { Effect, Layer } from "effect"
import { Tools } from "@core/tool/Tools"
import { ApplyPatchTool } from "./apply-patch"
import { BashTool } from "./bash"
import { EditTool } from "./edit"
import { GlobTool } from "./glob"
import { GrepTool } from "./grep"
import { QuestionTool } from "./question"
import { ReadTool } from "./read"
import { SkillTool } from "./skill"
import { TodoWriteTool } from "./todowrite"
import { WebFetchTool } from "./webfetch"
import { WebSearchTool } from "./websearch"
import { WriteTool } from "./write"

export * as Builtins from "./builtins"

/** The twelve built-in tools, in the order the seed lists them (also their catalog order). */
export const all = [
  ReadTool,
  WriteTool,
  EditTool,
  ApplyPatchTool,
  BashTool,
  GlobTool,
  GrepTool,
  WebFetchTool,
  WebSearchTool,
  SkillTool,
  TodoWriteTool,
  QuestionTool,
] as const

/**
 * Registers every built-in into one Location through its narrow `Tools` (SPEC-CORE E): each tool
 * acquires the services it needs when it is made, and the registration lives exactly as long as
 * the Location's scope. Passed to `Locations.layer({ plugins })`.
 */
export const layer = Layer.effectDiscard(
  Effect.gen(function* () {
    const tools = yield* Tools.Service
    const record: Record<string, unknown> = {}
    for (const tool of all) record[tool.name] = yield* tool.make
    yield* tools.register(record as Parameters<Tools.Interface["register"]>[0])
  }),
)
