import type { Dirent } from "node:fs"
import { readdir, readFile } from "node:fs/promises"
import { homedir } from "node:os"
import { basename, dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { Effect, Schema } from "effect"
import { parse as parseYaml } from "yaml"
import { Location } from "@core/location/Location"
import { PermissionV2 } from "@core/permission/PermissionV2"
import { Tool } from "@core/tool/Tool"
import { assertAction } from "./support/permission"

export * as SkillTool from "./skill"

export const name = "skill"
/** Files of a skill's directory listed in its output, at most. */
export const FILE_LIMIT = 10
export const SKILL_FILE = "SKILL.md"

/**
 * Where a Location keeps skills, in precedence order: a name found in an earlier root hides the
 * same name in later ones, and every Location root comes before the user's own skills.
 */
export const LOCATION_ROOTS = [".gatehouse/skills", ".opencode/skill", ".claude/skills"] as const

export interface Skill {
  readonly name: string
  readonly description: string
  /** Absolute path of the skill's `SKILL.md`. */
  readonly location: string
  /** The Markdown body after the front matter. */
  readonly content: string
}

type Env = Readonly<Record<string, string | undefined>>

/** `$XDG_CONFIG_HOME/gatehouse/skills`, else `~/.config/gatehouse/skills`. */
export function userSkillsDirectory(env: Env = process.env, home: string = homedir()): string {
  const config = env.XDG_CONFIG_HOME || join(home, ".config")
  return join(config, "gatehouse", "skills")
}

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/

/** Splits `SKILL.md` into its YAML front matter (`name`, `description`) and body. */
export function parseSkillFile(text: string): {
  readonly name?: string
  readonly description?: string
  readonly body: string
} {
  const match = FRONT_MATTER.exec(text)
  if (!match) return { body: text.replace(/^\uFEFF/, "") }
  const body = text.slice(match[0].length)
  let data: unknown
  try {
    data = parseYaml(match[1]!)
  } catch {
    // Broken front matter: the skill still loads under its directory name.
    return { body }
  }
  const fields = typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {}
  const nonEmpty = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)
  const found = { name: nonEmpty(fields.name), description: nonEmpty(fields.description) }
  return {
    body,
    ...(found.name !== undefined ? { name: found.name } : {}),
    ...(found.description !== undefined ? { description: found.description } : {}),
  }
}

async function entries(directory: string): Promise<ReadonlyArray<Dirent>> {
  return readdir(directory, { withFileTypes: true }).catch(() => [])
}

/**
 * Every skill under `roots` (each holding `<dir>/SKILL.md`); the first root naming a skill wins.
 * A missing root, an unreadable directory or a missing SKILL.md is skipped.
 */
export async function discover(roots: ReadonlyArray<string>): Promise<ReadonlyArray<Skill>> {
  const byName = new Map<string, Skill>()
  for (const root of roots) {
    const dirs = (await entries(root))
      .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
      .map((entry) => entry.name)
      .sort()
    for (const dir of dirs) {
      const location = join(root, dir, SKILL_FILE)
      const text = await readFile(location, "utf8").catch(() => undefined)
      if (text === undefined) continue
      const parsed = parseSkillFile(text)
      const skillName = parsed.name ?? dir
      if (byName.has(skillName)) continue
      byName.set(skillName, {
        name: skillName,
        description: parsed.description ?? "",
        location,
        content: parsed.body,
      })
    }
  }
  return [...byName.values()]
}

/** Up to {@link FILE_LIMIT} files under `directory` (recursive, dotfiles too, sorted, no SKILL.md). */
export async function sampleFiles(directory: string): Promise<ReadonlyArray<string>> {
  const found = await readdir(directory, { recursive: true, withFileTypes: true })
  return found
    .filter((entry) => entry.isFile() && entry.name !== SKILL_FILE)
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
    .slice(0, FILE_LIMIT)
}

/** The model text of a loaded skill (SPEC-CORE E.10). */
export function formatSkill(skill: Skill, files: ReadonlyArray<string>): string {
  return [
    `<skill_content name="${skill.name}">`,
    `# Skill: ${skill.name}`,
    "",
    skill.content.trim(),
    "",
    `Base directory for this skill: ${pathToFileURL(dirname(skill.location)).href}`,
    "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
    "Note: file list is sampled.",
    "",
    "<skill_files>",
    ...files.map((file) => `<file>${file}</file>`),
    "</skill_files>",
    "</skill_content>",
  ].join("\n")
}

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** The tool description, listing the skills available when the tool was made. */
export function describeSkills(skills: ReadonlyArray<Skill>): string {
  const intro = [
    "Loads a specialized skill when the task at hand matches one of the available skills below.",
    "",
    "A skill adds its instructions and resources to the conversation: detailed workflow guidance, and references to scripts and other files in the skill's directory.",
    "",
  ]
  if (skills.length === 0) return [...intro, "No skills are available."].join("\n")
  return [
    ...intro,
    "The name must be one of these:",
    "<available_skills>",
    ...skills.flatMap((skill) => [
      "  <skill>",
      `    <name>${escapeXml(skill.name)}</name>`,
      `    <description>${escapeXml(skill.description)}</description>`,
      "  </skill>",
    ]),
    "</available_skills>",
  ].join("\n")
}

export const Input = Schema.Struct({
  name: Schema.String.annotate({ description: "The name of the skill, from the available skills" }),
})
export type Input = typeof Input.Type

export const Output = Schema.Struct({
  name: Schema.String,
  /** The skill's directory (absolute). */
  directory: Schema.String,
  output: Schema.String,
  truncated: Schema.Boolean,
})
export type Output = typeof Output.Type

/** A skill file could not be read after approval. */
export class ReadError extends Schema.TaggedError<ReadError>()("SkillTool.ReadError", {
  location: Schema.String,
  cause: Schema.Defect(),
}) {
  override get message() {
    return `Cannot read the skill at ${this.location}`
  }
}

export interface Options {
  /** Where `XDG_CONFIG_HOME` is read; default `process.env`. */
  readonly env?: Env
  /** The home directory for `~/.config`; default the user's. */
  readonly home?: string
}

/**
 * `skill` (SPEC-CORE E.10). Skills are found in the Location's `.gatehouse/skills`,
 * `.opencode/skill` and `.claude/skills`, then in the user's config directory; the description
 * lists those present when the tool is made, and each call looks again. An unknown name fails with
 * `Unable to load skill <name>` before anything is asked.
 */
export const makeWith = (options: Options = {}) =>
  Effect.gen(function* () {
    const permission = yield* PermissionV2.Service
    const location = yield* Location.Service
    const roots = [
      ...LOCATION_ROOTS.map((root) => join(location.directory, root)),
      userSkillsDirectory(options.env ?? process.env, options.home ?? homedir()),
    ]
    const available = yield* Effect.promise(() => discover(roots))
    const unable = (skillName: string, error?: unknown) =>
      new Tool.ToolFailure({
        message: `Unable to load skill ${skillName}`,
        ...(error !== undefined ? { error } : {}),
      })

    return Tool.make({
      description: describeSkills(available),
      input: Input,
      output: Output,
      toModelOutput: ({ output }) => [{ type: "text", text: output.output }],
      execute: (input, context) =>
        Effect.gen(function* () {
          const skills = yield* Effect.promise(() => discover(roots))
          const skill = skills.find((candidate) => candidate.name === input.name)
          if (!skill) return yield* unable(input.name)
          return yield* Effect.gen(function* () {
            yield* assertAction(permission, context, {
              action: name,
              resources: [skill.name],
              save: [skill.name],
              metadata: { name: skill.name, location: skill.location },
            })
            const directory = dirname(skill.location)
            const files =
              basename(skill.location) === SKILL_FILE
                ? yield* Effect.tryPromise({
                    try: () => sampleFiles(directory),
                    catch: (cause) => new ReadError({ location: directory, cause }),
                  })
                : []
            return { name: skill.name, directory, output: formatSkill(skill, files), truncated: false }
          }).pipe(
            Effect.mapError((error) =>
              // The person's feedback is for the model: it must read it, not a generic failure.
              error._tag === "PermissionV2.CorrectedError"
                ? new Tool.ToolFailure({ message: error.message, error })
                : unable(input.name, error),
            ),
          )
        }),
    })
  })

/** The tool as the built-ins register it: the user's real config directory. */
export const make = makeWith()
