import { existsSync } from "node:fs"
import { builtRenderer, builtServe } from "./serve"

/** Both suites drive the built app; fail at once, with the fix, rather than in every test. */
export default function globalSetup() {
  for (const file of [builtServe, builtRenderer]) {
    if (!existsSync(file)) {
      throw new Error(`${file} is missing: run \`npm run build\` (or \`npm run test:e2e\`, which builds first).`)
    }
  }
}
