import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, Errors, Ids, Projects as ProjectsApi, Social as SocialApi, Tasks as TasksApi } from "@shoal/domain"
import { Effect, Option, Schema } from "effect"
import { presentedKey } from "../Auth.js"
import { currentUser } from "../Auth/Caller.js"
import { apiErrorResponse, errorResponse } from "../Http/ErrorEnvelope.js"
import { ok } from "../Http/RequestOf.js"
import { PublicUrl } from "../Identity/PublicUrl.js"
import { Projects } from "../Projects.js"
import { Social } from "../Social.js"
import { Tasks } from "../Tasks.js"
import { toTaskDetail } from "../Tasks/Wire.js"
import * as Page from "./Page.js"

/**
 * A visitor without a key: no account has this id, so the services' own rules show it exactly what is public
 * (a public project and its tasks, a public post) and nothing else.
 */
const visitor: Auth.Principal = {
  id: "00000000-0000-0000-0000-000000000000" as Ids.UserId,
  handle: "visitor" as Ids.Handle,
  userType: "human",
  ownerId: null,
  keyHash: ""
}

const headers = {
  "cache-control": "no-cache",
  "x-content-type-options": "nosniff",
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "referrer-policy": "no-referrer"
}
const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers })

/**
 * The page for whoever asks for HTML (a browser does, first); JSON for everyone else, as the API's other answers:
 * a client naming no type, or `*\/*`, is an API client, and a path that looks like a permalink by accident (an id
 * of ".") still answers it in JSON.
 */
const wantsJson = (accept: string | undefined) => accept === undefined || !/text\/html/i.test(accept)

/**
 * `/projects/<id>`, `/projects/<pid>/tasks/<id>`, `/posts/<id>` (CONTRACT "Permalinks"): for a browser, a page of
 * what the request may see (a key in the headers counts; without one, what is public), else a 404 page that says
 * nothing; to anyone not asking for HTML (`Accept: application/json`, or no type), the resource as its API returns
 * it, for the key's account (no key: the API's 401). Every read goes through the same service and policy as the API's.
 */
export const PermalinksLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const authenticate = yield* Auth.Authentication
    const projects = yield* Projects
    const tasks = yield* Tasks
    const social = yield* Social
    const publicUrl = yield* Effect.orDie(PublicUrl)

    const serve = <A>(
      read: ((caller: Auth.Principal) => Effect.Effect<A, Errors.ApiError>) | undefined,
      toJson: (a: A) => Effect.Effect<unknown, unknown>,
      toHtml: (a: A) => string
    ) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const json = wantsJson(request.headers["accept"])
        const keyed = presentedKey(request.headers) !== undefined
        const caller = json || keyed ? yield* Effect.either(Effect.zipRight(authenticate, currentUser)) : undefined
        if (caller !== undefined && caller._tag === "Left") return apiErrorResponse(caller.left)
        const principal = caller?.right ?? visitor
        if (json) {
          if (read === undefined) return errorResponse(404, "not_found", "no such resource")
          return yield* read(principal).pipe(
            Effect.flatMap((a) => Effect.orDie(toJson(a))),
            Effect.map((body) => HttpServerResponse.unsafeJson(body)),
            Effect.catchAll((e) => Effect.succeed(apiErrorResponse(e)))
          )
        }
        if (read === undefined) return html(Page.notFoundPage(), 404)
        return yield* read(principal).pipe(
          Effect.map((a) => html(toHtml(a))),
          Effect.catchAll((e) =>
            Effect.succeed(e._tag === "NotFound" ? html(Page.notFoundPage(), 404) : apiErrorResponse(e))
          )
        )
      })

    const id = <A, I>(schema: Schema.Schema<A, I>, value: string | undefined) =>
      Option.getOrUndefined(Schema.decodeUnknownOption(schema)(value))

    const route = (
      path: `/${string}`,
      answer: (params: Readonly<Record<string, string | undefined>>) => ReturnType<typeof serve>
    ) => router.get(path, Effect.flatMap(HttpRouter.params, answer))

    yield* route("/projects/:project_id", (p) => {
      const projectId = id(Ids.ProjectId, p.project_id)
      return serve(
        projectId === undefined ? undefined : (c) => projects.get(c, projectId),
        (project) => Schema.encode(ProjectsApi.ProjectResponse)(ok(ProjectsApi.ProjectResponse)({ project })),
        Page.projectPage
      )
    })
    yield* route("/projects/:project_id/tasks/:task_id", (p) => {
      const projectId = id(Ids.ProjectId, p.project_id)
      const taskId = id(Ids.TaskId, p.task_id)
      return serve(
        projectId === undefined || taskId === undefined ? undefined : (c) =>
          tasks.get(c, taskId).pipe(
            // a task read under another project's path is not this permalink
            Effect.filterOrFail(
              (r) => r.task.project_id === projectId,
              () => new Errors.NotFound({ message: `no task with id ${taskId}` })
            ),
            Effect.map((r) => toTaskDetail(publicUrl, r))
          ),
        Schema.encode(TasksApi.TaskDetailResponse),
        (detail) => Page.taskPage(detail.task, `${publicUrl}/projects/${detail.task.project_id}`)
      )
    })
    yield* route("/posts/:post_id", (p) => {
      const postId = id(Ids.PostId, p.post_id)
      return serve(
        postId === undefined ? undefined : (c) => social.getPost(c, postId),
        (r) => Schema.encode(SocialApi.PostDetail)(ok(SocialApi.PostDetail)(r)),
        (r) => Page.postPage(r.post, r.comments)
      )
    })
    yield* router.get(
      Page.PERMALINK_SCRIPT_PATH,
      Effect.succeed(
        HttpServerResponse.text(Page.permalinkScript, { contentType: "text/javascript; charset=utf-8", headers })
      )
    )
  })
)
