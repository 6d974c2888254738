import type { Method } from "@contract/channels"
import type { PayloadOf, SuccessOf } from "@contract/methods"
import type { Bridge } from "@renderer/bridge/Bridge"

/** Answers for the methods a component test expects; anything else is a test failure. */
export type Answers = {
  readonly [M in Method]?: (payload: PayloadOf<M>) => SuccessOf<M> | Promise<SuccessOf<M>>
}

/**
 * An in-memory bridge (SG-12) whose methods answer from functions the test gives; a function may
 * throw a contract error to answer with a typed failure. Every call is recorded.
 */
export function scriptedBridge(answers: Answers) {
  const calls: Array<{ readonly method: Method; readonly payload: unknown }> = []
  const bridge: Bridge = {
    invoke: (async (method: Method, payload: unknown) => {
      calls.push({ method, payload })
      const answer = answers[method] as ((payload: unknown) => unknown) | undefined
      if (!answer) throw new Error(`unexpected call: ${method}`)
      return answer(payload)
    }) as Bridge["invoke"],
    onEvents: () => () => {},
    transport: () => ({ state: "open", epoch: 1 }),
    onTransport: () => () => {},
  }
  return { bridge, calls, callsOf: (method: Method) => calls.filter((call) => call.method === method) }
}
