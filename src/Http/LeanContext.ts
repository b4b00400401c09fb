import { Context, Effect, Layer } from "effect"

/**
 * A layer built from only the listed services of its surroundings. An HttpApi group merges the context it was built
 * in into every request it handles, and Effect copies a context each time a request adds to it: built amid every
 * feature's services, each request would copy all of them, more with each feature. The list is checked by the
 * compiler: a layer that needs a service not listed does not typecheck, so nothing it uses can be missing.
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
