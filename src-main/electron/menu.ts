import { dialog, Menu, type MenuItemConstructorOptions } from "electron"
import type { Caller } from "@main/ipc/localCaller"
import { startDemo } from "@main/demo/Demo"

export interface MenuOptions {
  readonly dataDir: string
  readonly call: Caller
}

/**
 * Installs the application menu: the platform's standard roles plus "Start the demo", which does what
 * `npm run demo` does inside the running app (a sample project and three scripted sessions).
 */
export function installMenu(options: MenuOptions): void {
  const demo = async () => {
    try {
      const started = await startDemo({ dataDir: options.dataDir, call: options.call })
      await dialog.showMessageBox({
        type: "info",
        message: "The demo is running",
        detail: [
          `Sample project: ${started.directory}`,
          `${started.sessions.length} sessions started; their asks arrive in the Inbox within seconds.`,
          ...started.notes,
        ].join("\n"),
      })
    } catch (error) {
      dialog.showErrorBox("The demo could not start", error instanceof Error ? error.message : String(error))
    }
  }
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === "darwin" ? [{ role: "appMenu" as const }] : []),
    { role: "fileMenu" },
    { role: "editMenu" },
    { role: "viewMenu" },
    {
      label: "Demo",
      submenu: [{ label: "Start the demo sessions", click: () => void demo() }],
    },
    { role: "windowMenu" },
  ]
  Menu.setApplicationMenu(Menu.buildFromTemplate(template))
}
