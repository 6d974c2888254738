import { Effect } from "effect"
import type { Config } from "../../config/Config"
import { OpenAICompatible } from "./OpenAICompatible"
import { Provider } from "./Provider"
import { Scripted } from "./Scripted"

export * as Providers from "./Providers"

export interface Options extends OpenAICompatible.Options, Scripted.Options {}

/**
 * The provider a config entry describes. All checks and the reading of keys and scripts happen
 * here, so a bad entry fails when a session starts, with the entry's name in the message.
 */
export const make = (
  config: Config.ProviderConfig,
  options: Options = {},
): Effect.Effect<Provider.Interface, Provider.ConfigError> =>
  config.type === "scripted" ? Scripted.make(config, options) : OpenAICompatible.make(config, options)

/** The provider named `name` under `providers` in config.jsonc. */
export const named = (
  config: Config.GatehouseConfig,
  name: string,
  options: Omit<Options, "name"> = {},
): Effect.Effect<Provider.Interface, Provider.ConfigError> => {
  const providers = config.providers ?? {}
  if (Object.hasOwn(providers, name)) return make(providers[name]!, { ...options, name })
  const known = Object.keys(providers)
  return Effect.fail(
    new Provider.ConfigError({
      provider: name,
      reason:
        known.length > 0
          ? `config.jsonc has no provider of that name (configured: ${known.join(", ")})`
          : "config.jsonc configures no providers",
    }),
  )
}
