import { Context, Effect, Layer } from "effect"

/**
 * A layer built from only the listed services of its surroundings. An HttpApi group keeps the context it was
 * built in and merges it into every request it handles, and Effect copies a context each time a request adds to
 * it: built amid every feature's services, each request of the group would copy all of them, again and again,
 * and more with each feature. Built from its own few, it copies those. The list is checked by the compiler: a
 * layer that needs a service not listed does not typecheck, so nothing it uses at build or at request time can
 * be missing.
 */
export const withOnly = <const Tags extends ReadonlyArray<Context.Tag<any, any>>>(...tags: Tags) =>
<ROut, E>(
  layer: Layer.Layer<ROut, E, Context.Tag.Identifier<Tags[number]>>
): Layer.Layer<ROut, E, Context.Tag.Identifier<Tags[number]>> =>
  Layer.scopedContext(Effect.gen(function*() {
    const context = yield* Effect.context<Context.Tag.Identifier<Tags[number]>>()
    const memoMap = yield* Layer.CurrentMemoMap
    const scope = yield* Effect.scope
    const lean = Context.pick(...tags)(context) as Context.Context<Context.Tag.Identifier<Tags[number]>>
    return yield* Effect.mapInputContext(
      Layer.buildWithMemoMap(layer, memoMap, scope),
      (_: Context.Context<never>) => lean
    )
  }))
