// The hello-world HttpApi the HTTP benches measure against (bench/hello-server.ts serves it, bench/steps-hello.ts
// counts its fiber steps): one GET answering a small JSON object, on the same stack and settings as Shoal.
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Effect, Layer, Schema } from "effect"

class Hello extends HttpApiGroup.make("hello").add(
  HttpApiEndpoint.get("hello", "/hello").addSuccess(Schema.Struct({ status: Schema.String, message: Schema.String }))
) {}
class Api extends HttpApi.make("hello").add(Hello) {}

const HelloLive = HttpApiBuilder.group(
  Api,
  "hello",
  (h) => h.handle("hello", () => Effect.succeed({ status: "success", message: "hello" }))
)

export const HelloApiLive = HttpApiBuilder.api(Api).pipe(Layer.provide(HelloLive))
