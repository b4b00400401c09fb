import { fuzzBothApis } from "./FuzzSuite.js"

// the even-numbered operations; Fuzz.odd.test.ts takes the others (see FuzzSuite.ts)
fuzzBothApis({ index: 0, of: 2 })
