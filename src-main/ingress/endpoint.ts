// Where MCP clients connect, shared by the server and the `gatehouse` command (which must not load
// the server to know it).

/** The MCP endpoint on the loopback server, admitted by the agent token only. */
export const path = "/mcp"

/** The loopback server's port unless config.jsonc's `server.port` says otherwise. */
export const defaultPort = 7317
