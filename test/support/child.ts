import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { build } from "esbuild"

/**
 * Bundles a small TypeScript program (which may import project sources by absolute path) into a
 * plain .mjs that `node` starts in milliseconds: tests that kill child processes start many of them.
 * Packages stay external and resolve from the project's node_modules.
 */
export async function bundleForChild(name: string, source: string): Promise<string> {
  const dir = join(process.cwd(), "node_modules", ".cache", "gatehouse-test")
  mkdirSync(dir, { recursive: true })
  const outfile = join(dir, `${name}-${process.pid}.mjs`)
  await build({
    stdin: { contents: source, loader: "ts", resolveDir: process.cwd(), sourcefile: `${name}.ts` },
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    tsconfig: join(process.cwd(), "tsconfig.node.json"),
    outfile,
    logLevel: "error",
  })
  return outfile
}
