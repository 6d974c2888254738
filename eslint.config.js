import js from "@eslint/js"
import tseslint from "typescript-eslint"
import globals from "globals"

// Zone import rules (STYLE.md SG-2). The message text is the documentation.
const restrict = (paths, patterns) => ({ "no-restricted-imports": ["error", { paths, patterns }] })
const electron = { name: "electron", message: "only src-main/electron/** and src-main/index.ts may import electron" }
const react = ["react", "react/*", "react-dom", "react-dom/*", "zustand", "zustand/*"]

export default tseslint.config(
  { ignores: ["node_modules/", "out/", "reports/", "test-results/", "playwright-report/", ".electron-native/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "require-yield": "off",
      "no-control-regex": "off",
    },
  },
  {
    files: ["src-preload/contract/**/*.ts"],
    rules: restrict(
      [electron],
      [
        {
          regex: "^(?!effect(/|$)|\\.{1,2}/).*",
          message: "the contract is schema-only: it may import effect and its own files, nothing else",
        },
      ],
    ),
  },
  {
    files: ["src-main/core/**/*.ts"],
    rules: restrict(
      [{ ...electron, message: "core runs under plain Node; depend on a service from src-main/electron instead" }],
      [
        {
          group: [
            "**/src-renderer/**",
            "@renderer/*",
            "**/src-main/electron/**",
            "@main/electron/*",
            "**/src-main/ipc/**",
            "@main/ipc/*",
            "**/src-main/web/**",
            "@main/web/*",
            ...react,
          ],
          message: "core may import only contract, effect, node:* and its own libraries (better-sqlite3, …)",
        },
      ],
    ),
  },
  {
    files: ["src-main/ipc/**/*.ts"],
    rules: restrict(
      [{ ...electron, message: "ipc receives an injected IpcMain slice; it never imports electron" }],
      [{ group: ["**/src-renderer/**", "@renderer/*", ...react], message: "ipc may import contract and core only" }],
    ),
  },
  {
    files: ["src-main/**/*.ts"],
    ignores: ["src-main/core/**", "src-main/ipc/**", "src-main/electron/**", "src-main/index.ts"],
    rules: restrict(
      [electron],
      [{ group: ["**/src-renderer/**", "@renderer/*", ...react], message: "main never imports the renderer" }],
    ),
  },
  {
    files: ["src-main/electron/**/*.ts", "src-main/index.ts"],
    rules: restrict(
      [],
      [{ group: ["**/src-renderer/**", "@renderer/*", ...react], message: "main never imports the renderer" }],
    ),
  },
  {
    files: ["src-preload/index.ts"],
    rules: restrict(
      [],
      [
        {
          regex: "^(?!electron$|\\./contract/channels(\\.ts)?$).*",
          message: "the sandboxed preload imports ./contract/channels and electron's contextBridge/ipcRenderer only",
        },
      ],
    ),
  },
  {
    files: ["src-renderer/**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser } },
    rules: restrict(
      [electron],
      [
        { group: ["node:*"], message: "the renderer runs in a browser sandbox: no node:* imports" },
        { group: ["**/src-main/**", "@core/*", "@main/*"], message: "the renderer reaches main only through bridge/" },
        {
          group: ["**/src-preload/index*"],
          message: "the renderer reaches the preload only through window.api in bridge/",
        },
      ],
    ),
  },
)
