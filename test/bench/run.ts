import { readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

// `npm run bench [name…]` runs every test/bench/*.bench.ts (or those whose name contains an
// argument), one after another so they do not compete for the two cores. Each file's default
// export prints its figures, measured side by side with its own baseline in the same run.

const here = dirname(fileURLToPath(import.meta.url))
const filters = process.argv.slice(2)
const files = readdirSync(here)
  .filter((file) => file.endsWith(".bench.ts"))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort()

if (files.length === 0) {
  console.log(filters.length ? `No benchmark matches ${filters.join(", ")}` : "No benchmarks yet")
}
for (const file of files) {
  console.log(`\n## ${file}`)
  const module = (await import(pathToFileURL(join(here, file)).href)) as { default: () => Promise<void> }
  await module.default()
}
