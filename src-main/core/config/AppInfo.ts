import { Context, Layer } from "effect"

export * as AppInfo from "./AppInfo"

/** Who is running: the version shown in the UI and which host serves it. */
export interface Interface {
  readonly name: string
  readonly version: string
  readonly host: "electron" | "headless"
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/config/AppInfo") {}

export const layer = (info: Interface) => Layer.succeed(Service, Service.of(info))
