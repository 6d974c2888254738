// The sample project the demo's sessions work on: a tiny JavaScript library with a bug its test
// catches, a README, a config loader and a `.env` (which the built-in rules ask before reading).

export const sampleFiles: Readonly<Record<string, string>> = {
  "README.md": `# greeter

A tiny greeting library, used by Gatehouse's demo.

- \`src/greet.js\` builds the greeting.
- \`src/config.js\` loads settings from \`.env\`.
- \`node test.js\` runs the tests.

TODO: move the settings out of \`.env\` into a real configuration file.
`,
  "package.json": `${JSON.stringify(
    { name: "greeter", version: "0.1.0", private: true, type: "module", scripts: { test: "node test.js" } },
    null,
    2,
  )}\n`,
  "src/greet.js": `// TODO: the greeting is misspelled.
export function greet(name) {
  return "Helo, " + name
}
`,
  "src/config.js": `import { readFileSync } from "node:fs"

// Reads KEY=VALUE lines from .env.
export function loadConfig(file = ".env") {
  const settings = {}
  for (const line of readFileSync(file, "utf8").split("\\n")) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim())
    if (match) settings[match[1]] = match[2]
  }
  return settings
}
`,
  "test.js": `import assert from "node:assert/strict"
import { greet } from "./src/greet.js"

assert.equal(greet("Ada"), "Hello, Ada")
console.log("ok - greet")
`,
  ".env": `# Not a real secret: the demo shows that reading .env waits for you.
GREETER_API_TOKEN=demo-0000-not-a-real-token
GREETER_LANGUAGE=en
`,
  ".gitignore": ".env\n",
}

/** The page the reviewer fetches (served on 127.0.0.1 by the demo). */
export const checklistPage = `<!doctype html>
<html>
  <head><title>greeter release checklist</title></head>
  <body>
    <h1>Release checklist</h1>
    <ol>
      <li>The tests pass: <code>node test.js</code>.</li>
      <li>No secrets in the repository (<code>.env</code> stays ignored).</li>
      <li>The README says how to configure the library.</li>
    </ol>
  </body>
</html>
`
