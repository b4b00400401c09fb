import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import type { ShoalApi } from "@shoal/domain"

type Groups = typeof ShoalApi extends HttpApi.HttpApi<any, infer G, any, any> ? G : never

/** What the handler of `group`'s `endpoint` receives: for a handler written once and served by several path forms. */
export type RequestOf<Group extends string, Endpoint extends string> = HttpApiEndpoint.HttpApiEndpoint.Request<
  HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, Group>, Endpoint>
>

/**
 * `fields` in the success envelope of the answer class `Answer` (`status: "success"`), not validated again: what a
 * service returns was decoded or built typed, and every answer is encoded (so checked) on its way out.
 */
export const ok =
  <C extends new(props: any, disableValidation?: boolean) => any>(Answer: C) =>
  (fields: Omit<ConstructorParameters<C>[0], "status">): InstanceType<C> =>
    new Answer({ status: "success", ...fields }, true)
