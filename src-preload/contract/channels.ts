// Names only, no imports: the sandboxed preload bundles this file and nothing else (SG-11).

/** Every request/response method of the contract. `methods.ts` gives each one its schemas. */
export const Methods = [
  "app.info",
  "app.snapshot",
  "permission.reply",
  "permission.replyMany",
  "permission.rejectSession",
  "question.reply",
  "question.reject",
  "approvals.list",
  "approvals.add",
  "approvals.update",
  "approvals.remove",
  "approvals.export",
  "agents.list",
  "outputs.list",
  "outputs.read",
  "outputs.delete",
  "sessions.list",
  "sessions.get",
  "sessions.start",
  "sessions.stop",
  "decisions.list",
  "decisions.export",
  "connectors.list",
  "connectors.add",
  "connectors.remove",
] as const
export type Method = (typeof Methods)[number]

/** The one channel that carries batches of push events from main to the renderer. */
export const EventChannel = "gatehouse:events"

/** Prefix of every IPC channel; the main process refuses any other. */
export const ChannelPrefix = "gatehouse:"
export const channelOf = (method: Method) => `${ChannelPrefix}${method}`
