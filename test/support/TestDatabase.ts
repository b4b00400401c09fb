import { Layer, Redacted } from "effect"
import * as Fs from "node:fs"
import { inject } from "vitest"
import * as Database from "../../src/Database/Database.js"
import * as PgliteClient from "../../src/Database/PgliteClient.js"

/**
 * A real PostgreSQL for a test file: the server at DATABASE_URL when set, else an in-memory PGlite loaded
 * from the migrated template that globalSetup built.
 */
export const TestDatabase = Layer.suspend(() => {
  const url = process.env.DATABASE_URL
  if (url) return Database.layerPg(Redacted.make(url))
  const template = Fs.readFileSync(inject("pgliteTemplate"))
  return PgliteClient.layerFrom(PgliteClient.open({ loadDataDir: new Blob([template]) }))
})

export const usingServer = () => Boolean(process.env.DATABASE_URL)
