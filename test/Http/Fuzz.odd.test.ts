import { fuzzBothApis } from "./FuzzSuite.js"

// the odd-numbered operations; Fuzz.test.ts takes the others (see FuzzSuite.ts)
fuzzBothApis({ index: 1, of: 2 })
