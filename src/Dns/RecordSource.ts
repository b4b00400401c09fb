import { Context, Effect, Layer, Option } from "effect"

/** What the responder serves for one handle. `txt` values are already `key:value` strings. */
export interface IdentityRecords {
  readonly txt: ReadonlyArray<string>
  readonly proofUrl: string
}

/** Where the responder finds identity records; handles arrive lowercased. */
export class RecordSource extends Context.Tag("Dns/RecordSource")<RecordSource, {
  readonly lookup: (handle: string) => Effect.Effect<Option.Option<IdentityRecords>>
  /**
   * The records `lookup` would give now, if they are already at hand (a cache hit), read without waiting: null
   * when the handle is known not to exist, undefined when only `lookup` can tell. The same object as long as the
   * handle's records did not change: a change, or a re-read after expiry, gives a different one.
   */
  readonly peek: (handle: string) => IdentityRecords | null | undefined
  /** Calls `listener` with each handle whose records changed, until the returned function is called. */
  readonly onChange: (listener: (handle: string) => void) => () => void
}>() {
  /** A fixed in-memory source, for tests, benchmarks and local runs. */
  static readonly layerMemory = (records: Readonly<Record<string, IdentityRecords>>): Layer.Layer<RecordSource> => {
    const map = new Map(Object.entries(records))
    return Layer.succeed(RecordSource, {
      lookup: (handle) => Effect.sync(() => Option.fromNullable(map.get(handle))),
      peek: (handle) => map.get(handle) ?? null,
      onChange: () => () => {}
    })
  }
}
