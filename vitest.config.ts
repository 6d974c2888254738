import { resolve } from "node:path"
import { defineConfig } from "vitest/config"

// vitest 5 targets Node 22; its failure reporter calls Map.groupBy, which Node 20 lacks.
const mapWithGroupBy = Map as unknown as {
  groupBy?: <K, V>(items: Iterable<V>, key: (item: V, index: number) => K) => Map<K, V[]>
}
mapWithGroupBy.groupBy ??= <K, V>(items: Iterable<V>, key: (item: V, index: number) => K) => {
  const groups = new Map<K, V[]>()
  let index = 0
  for (const item of items) {
    const k = key(item, index++)
    const group = groups.get(k)
    if (group) group.push(item)
    else groups.set(k, [item])
  }
  return groups
}

const alias = {
  "@contract": resolve("src-preload/contract"),
  "@core": resolve("src-main/core"),
  "@main": resolve("src-main"),
  "@renderer": resolve("src-renderer"),
}

// Three projects mirror the runtime split (STYLE.md SG-20): core under plain Node, the store
// against real SQLite files under plain Node, and the renderer in a DOM environment.
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "core",
          environment: "node",
          include: ["test/main/**/*.test.ts", "test/preload/**/*.test.ts", "test/security/**/*.test.ts"],
          exclude: ["test/main/core/store/**"],
          setupFiles: ["test/support/setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "store",
          environment: "node",
          include: ["test/main/core/store/**/*.test.ts"],
          setupFiles: ["test/support/setup.ts"],
          testTimeout: 30_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "renderer",
          environment: "jsdom",
          include: ["test/renderer/**/*.test.{ts,tsx}"],
          testTimeout: 30_000,
        },
      },
    ],
  },
})
