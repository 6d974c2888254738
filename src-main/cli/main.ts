#!/usr/bin/env node
import { runCli } from "./commands"

// The `gatehouse` bin (out/main/cli.js; `npm run gatehouse -- <command>` runs it from source).
void runCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  cwd: process.cwd(),
}).then((code) => {
  process.exitCode = code
})
