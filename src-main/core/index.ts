// The core's public surface: code outside core (hosts, ingress, tests) imports the core from here.
// Each line re-exports one service namespace; features append their own.

export { AppInfo } from "./config/AppInfo"
export { Config } from "./config/Config"
export { DataDir } from "./config/DataDir"
export { EventBus } from "./events/EventBus"
export { Tokens } from "./auth/Tokens"
export { Projects } from "./session/Projects"
export { Sessions } from "./session/Sessions"
export { Store } from "./store/Store"
export { sql } from "./store/sql"
export * as Identifier from "./id/Identifier"
export { Tool } from "./tool/Tool"
export { ApplicationTools } from "./tool/ApplicationTools"
export { ToolRegistry } from "./tool/ToolRegistry"
export { Tools } from "./tool/Tools"
export { ToolOutputStore } from "./output/ToolOutputStore"
