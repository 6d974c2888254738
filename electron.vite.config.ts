import { resolve } from "node:path"
import { defineConfig } from "electron-vite"
import react from "@vitejs/plugin-react"
import type { Plugin } from "vite"
import { metaContentSecurityPolicy } from "./src-main/electron/csp"

/**
 * Puts the CSP into the built index.html. Only at build: the dev server's React refresh preamble
 * is an inline script that the policy (rightly) forbids.
 */
const cspMeta = (): Plugin => ({
  name: "gatehouse-csp-meta",
  apply: "build",
  transformIndexHtml: (html) =>
    html.replace(
      "<head>",
      `<head>\n    <meta http-equiv="Content-Security-Policy" content="${metaContentSecurityPolicy}" />`,
    ),
})

const alias = {
  "@contract": resolve("src-preload/contract"),
  "@core": resolve("src-main/core"),
  "@main": resolve("src-main"),
}

export default defineConfig({
  main: {
    resolve: { alias },
    build: {
      // Every entry that runs under plain Node or Electron's main process. `launch` and `serve`
      // never load electron; `index` is the Electron composition root; `cli` is the gatehouse bin.
      lib: {
        entry: {
          index: resolve("src-main/index.ts"),
          serve: resolve("src-main/web/serve.ts"),
          launch: resolve("src-main/launch.ts"),
          cli: resolve("src-main/cli/main.ts"),
          demo: resolve("src-main/demo/main.ts"),
        },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload cannot require() anything but electron: bundle it into one CJS file.
      externalizeDeps: false,
      lib: { entry: { index: resolve("src-preload/index.ts") }, formats: ["cjs"] },
    },
  },
  renderer: {
    root: "src-renderer",
    resolve: { alias: { "@contract": resolve("src-preload/contract"), "@renderer": resolve("src-renderer") } },
    build: { rollupOptions: { input: resolve("src-renderer/index.html") } },
    plugins: [react(), cspMeta()],
  },
})
