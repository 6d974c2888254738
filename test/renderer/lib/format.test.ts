import { describe, expect, it } from "vitest"
import { formatBytes, formatCount, formatDateTime, formatDuration } from "@renderer/lib/format"

describe("format", () => {
  it("gives exact bytes with a readable unit", () => {
    expect(formatBytes(512)).toBe("512 B")
    expect(formatBytes(51_200)).toBe("51,200 B (50.0 KiB)")
    expect(formatBytes(52_428_800)).toBe("52,428,800 B (50.0 MiB)")
  })

  it("groups counts and writes sortable local times", () => {
    expect(formatCount(1234567)).toBe("1,234,567")
    expect(formatDateTime(new Date(2025, 2, 4, 7, 5, 9).getTime())).toBe("2025-03-04 07:05:09")
  })

  it("writes durations at a useful precision", () => {
    expect(formatDuration(840)).toBe("840 ms")
    expect(formatDuration(4200)).toBe("4.2 s")
    expect(formatDuration(185_000)).toBe("3m 05s")
    expect(formatDuration(3_720_000)).toBe("1h 02m")
    expect(formatDuration(-1)).toBe("—")
  })
})
