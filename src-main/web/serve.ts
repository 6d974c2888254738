import { runHeadlessProcess } from "./process"

// `npm run serve`: the headless host, started from the built bundle (out/main/serve.js).
void runHeadlessProcess({ argv: process.argv.slice(2), env: process.env })
