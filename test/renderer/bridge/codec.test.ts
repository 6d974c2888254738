import { Exit, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { InvalidRequestError } from "@contract/methods"
import { exitSchemaOf } from "@contract/wire"
import { decodeExit, encodePayload, ProtocolError } from "@renderer/bridge/codec"
import { info } from "../support/fixtures"

const encode = (exit: Exit.Exit<unknown, unknown>) => Schema.encodeUnknownSync(exitSchemaOf("app.info"))(exit)

describe("bridge codec", () => {
  it("returns the success value of an encoded Exit", () => {
    expect(decodeExit("app.info", encode(Exit.succeed(info(4))))).toEqual(info(4))
  })

  it("throws a typed failure as the tagged error itself, so err._tag works", () => {
    const failure = encode(Exit.fail(new InvalidRequestError({ method: "app.info", reason: "bad" })))
    try {
      decodeExit("app.info", failure)
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidRequestError)
      expect((error as InvalidRequestError)._tag).toBe("Contract.InvalidRequestError")
      expect((error as Error).message).toBe("Invalid app.info request: bad")
    }
  })

  it("throws a defect as an Error with its message", () => {
    expect(() => decodeExit("app.info", encode(Exit.die(new Error("boom"))))).toThrow("boom")
  })

  it("throws ProtocolError for an answer the contract cannot read", () => {
    expect(() => decodeExit("app.info", { _tag: "Success", value: { name: 1 } })).toThrow(ProtocolError)
    expect(() => decodeExit("app.info", "nonsense")).toThrow(/Unreadable answer to app.info/)
  })

  it("encodes the payload of a method without input as null", () => {
    expect(encodePayload("app.snapshot", undefined)).toBeNull()
  })
})
