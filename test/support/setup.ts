import fc from "fast-check"

// Property tests run with a fixed budget on CI's two cores; a failure prints its seed and path.
fc.configureGlobal({ ...fc.readConfigureGlobal(), numRuns: Number(process.env.FC_NUM_RUNS ?? 100) })
