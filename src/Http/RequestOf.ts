import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import type { ShoalApi } from "@shoal/domain"

type Groups = typeof ShoalApi extends HttpApi.HttpApi<any, infer G, any, any> ? G : never

/** What the handler of `group`'s `endpoint` receives: for a handler written once and served by several path forms. */
export type RequestOf<Group extends string, Endpoint extends string> = HttpApiEndpoint.HttpApiEndpoint.Request<
  HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, Group>, Endpoint>
>
