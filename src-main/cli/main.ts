// The `gatehouse` command. Sub-commands arrive with the runner (run) and MCP ingress (mcp, mcp-config).

const usage = `Usage: gatehouse <command>

Commands are added by later features; run \`npm start\` or \`npm run serve\` to start Gatehouse.`

process.stdout.write(`${usage}\n`)
process.exitCode = process.argv.length > 2 ? 2 : 0
