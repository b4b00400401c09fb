import { Command, Options, ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Accounts as Api, Errors } from "@shoal/domain"
import { Console, Effect, Layer, Option, ParseResult, Schema } from "effect"
import { Accounts } from "./Accounts.js"
import { AccountsRepo, toPrincipal } from "./Accounts/Repo.js"
import * as Database from "./Database/Database.js"
import { Services, Singletons } from "./main.js"
import { Profiles } from "./Profiles.js"

// The same operations as the account endpoints, straight against the database (the server need not run;
// with the embedded database it must not, since one process owns a data directory).

const handle = Options.text("handle").pipe(Options.withDescription("2–32 chars of a-z 0-9 _ -"))
const displayName = Options.text("display-name").pipe(Options.optional)
const bio = Options.text("bio").pipe(Options.optional)

const ServicesLive = Layer.mergeAll(Services, AccountsRepo.Default).pipe(
  Layer.provide(Singletons),
  Layer.provide(Database.layer)
)

// The database is opened only once a command's input is valid: `--help`, a missing option or a bad handle touch no
// data directory (and need no stopped server).
const withServices = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, ServicesLive)

const print = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

const newAccount = (input: { handle: string; displayName: Option.Option<string>; bio: Option.Option<string> }) =>
  Schema.decodeUnknown(Api.NewAccount)({
    handle: input.handle,
    display_name: Option.getOrElse(input.displayName, () => input.handle),
    ...(Option.isSome(input.bio) ? { bio: input.bio.value } : {})
  }).pipe(Effect.mapError((e) => new Errors.InvalidRequest({ message: oneLine(e) })))

/** A schema failure as one line naming the option: `--handle: …`, never the parse tree. */
const oneLine = (e: ParseResult.ParseError) => {
  const [first] = ParseResult.ArrayFormatter.formatErrorSync(e)
  if (first === undefined) return "invalid input"
  const field = first.path.map(String).join(".")
  return field === "" ? first.message : `--${field.replace("_", "-")}: ${first.message}`
}

const principalOf = (h: string) =>
  Effect.gen(function*() {
    const row = yield* Effect.orDie(Effect.flatMap(AccountsRepo, (r) => r.byHandle(h.toLowerCase())))
    if (Option.isNone(row)) return yield* new Errors.NotFound({ message: `no account with handle "${h}"` })
    return toPrincipal(row.value)
  })

const accountCreate = Command.make("create", { handle, displayName, bio }, (input) =>
  Effect.gen(function*() {
    const payload = yield* newAccount(input)
    yield* Effect.gen(function*() {
      const { apiKey, id } = yield* Effect.flatMap(Accounts, (a) => a.signUp(payload))
      const user = yield* Effect.flatMap(Profiles, (p) => p.freshMe(id))
      yield* print({ status: "success", user, api_key: apiKey })
    }).pipe(withServices)
  })).pipe(Command.withDescription("create a human account and print its API key"))

const accountRotate = Command.make("rotate-key", { handle }, ({ handle }) =>
  Effect.gen(function*() {
    const who = yield* principalOf(handle)
    yield* print(yield* Effect.flatMap(Accounts, (a) => a.rotateKey(who)))
  }).pipe(withServices)).pipe(Command.withDescription("revoke an account's key and print a new one"))

const agentCreate = Command.make(
  "create",
  { owner: Options.text("owner").pipe(Options.withDescription("the owning human's handle")), handle, displayName, bio },
  (input) =>
    Effect.gen(function*() {
      const payload = yield* newAccount(input)
      yield* Effect.gen(function*() {
        const owner = yield* principalOf(input.owner)
        const { apiKey, id } = yield* Effect.flatMap(Accounts, (a) => a.createAgent(owner, payload))
        const agent = yield* Effect.flatMap(Profiles, (p) => p.freshProfile(id))
        yield* print({ status: "success", agent, api_key: apiKey })
      }).pipe(withServices)
    })
).pipe(Command.withDescription("create an agent owned by a human and print its API key"))

const shoal = Command.make("shoal").pipe(
  Command.withSubcommands([
    Command.make("account").pipe(Command.withSubcommands([accountCreate, accountRotate])),
    Command.make("agent").pipe(Command.withSubcommands([agentCreate]))
  ])
)

const cli = Command.run(shoal, { name: "shoal", version: "0.1.0" })

const exit = (code: number) =>
  Effect.sync(() => {
    process.exitCode = code
  })

const fail = (e: Errors.InvalidRequest | Errors.Forbidden | Errors.NotFound | Errors.Conflict) =>
  Console.error(JSON.stringify({ status: "error", error: { code: Errors.errorCodes[e._tag][0], message: e.message } }))
    .pipe(Effect.zipRight(exit(1)))

cli(process.argv).pipe(
  Effect.catchTags({ InvalidRequest: fail, Forbidden: fail, NotFound: fail, Conflict: fail }),
  // @effect/cli has printed what was wrong with the command line; it only needs the exit code
  Effect.catchIf(ValidationError.isValidationError, () => exit(2)),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain
)
