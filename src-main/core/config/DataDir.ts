import { Context, Layer } from "effect"

export * as DataDir from "./DataDir"

/**
 * The directory that holds everything Gatehouse keeps: `gatehouse.db`, `tool-output/`, the access
 * tokens and `server.json`. Resolved once by the composition root (src-main/app/paths.ts).
 */
export interface Interface {
  readonly path: string
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/config/DataDir") {}

export const layer = (path: string) => Layer.succeed(Service, Service.of({ path }))
