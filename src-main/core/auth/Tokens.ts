import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import { DataDir } from "../config/DataDir"

export * as Tokens from "./Tokens"

/**
 * Two secrets, two doors (PRODUCT.md): the agent token admits MCP clients, the supervisor token
 * admits the UI. Each is 32 random bytes (64 hex characters) in a 0600 file of the data directory.
 */
export type Kind = "agent" | "supervisor"

export interface Interface {
  readonly agent: string
  readonly supervisor: string
  /** Constant-time check of a presented token against one door's secret. */
  readonly verify: (kind: Kind, presented: string | undefined | null) => boolean
}

export class Service extends Context.Service<Service, Interface>()("@gatehouse/main/core/auth/Tokens") {}

export const fileName = (kind: Kind) => `${kind}.token`

/** Reads the token file, creating it (mode 0600) when missing or malformed, and tightening its mode. */
export function ensureToken(dataDir: string, kind: Kind): string {
  const file = join(dataDir, fileName(kind))
  mkdirSync(dataDir, { recursive: true })
  try {
    const existing = readFileSync(file, "utf8").trim()
    if (/^[0-9a-f]{64}$/.test(existing)) {
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
      return existing
    }
  } catch {
    // missing: create below
  }
  const token = randomBytes(32).toString("hex")
  writeFileSync(file, `${token}\n`, { mode: 0o600 })
  chmodSync(file, 0o600)
  return token
}

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest()

/** Compares digests so neither the length nor the content of the secret leaks through timing. */
export function tokensEqual(secret: string, presented: string | undefined | null): boolean {
  if (typeof presented !== "string" || presented.length === 0) return false
  return timingSafeEqual(digest(secret), digest(presented))
}

export const make = (dataDir: string): Interface => {
  const agent = ensureToken(dataDir, "agent")
  const supervisor = ensureToken(dataDir, "supervisor")
  return {
    agent,
    supervisor,
    verify: (kind, presented) => tokensEqual(kind === "agent" ? agent : supervisor, presented),
  }
}

export const layer = Layer.effect(
  Service,
  Effect.gen(function* () {
    const dataDir = yield* DataDir.Service
    return Service.of(make(dataDir.path))
  }),
)
