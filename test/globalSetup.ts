import { PGlite } from "@electric-sql/pglite"
import { Effect } from "effect"
import { Layer, Redacted } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { TestProject } from "vitest/node"
import * as Database from "../src/Database/Database.js"
import { runMigrations } from "../src/Database/Migrations.js"
import * as PgliteClient from "../src/Database/PgliteClient.js"

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string
  }
}

/**
 * Initialising a PGlite directory takes seconds and ~1 GB; do it once, migrated, and let every test file
 * load a copy of it. With DATABASE_URL the suite runs against that server instead (migrated here once).
 */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL
  if (url) {
    await Effect.runPromise(Effect.provide(runMigrations, Database.layerPg(Redacted.make(url))).pipe(Effect.scoped))
    project.provide("pgliteTemplate", "")
    return
  }
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-template-"))
  const file = Path.join(dir, "template.tar.gz")
  await Effect.runPromise(
    Effect.gen(function*() {
      const { db } = yield* PgliteClient.Pglite
      yield* runMigrations
      const dump = yield* Effect.promise(() => db.dumpDataDir("gzip"))
      Fs.writeFileSync(file, Buffer.from(yield* Effect.promise(() => dump.arrayBuffer())))
    }).pipe(Effect.provide(PgliteClient.layerFrom(PgliteClient.open({}))), Effect.scoped)
  )
  project.provide("pgliteTemplate", file)
  return () => Fs.rmSync(dir, { recursive: true, force: true })
}
void PGlite
void Layer
