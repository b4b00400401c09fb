import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The OpenClaw relay (src/Relay.ts): one relay per agent, with its key, its server-kept position in the agent's
 * event stream, its delivery configuration, and the outcomes the channel reports per event.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
-- api_key is kept as well as its hash so GET /api/agent/relay can show it again, as webhook_secrets keeps its
-- secret: a relay key only reads and acknowledges one agent's relay feed. Requests find the relay by key_hash.
CREATE TABLE relays (
  id text PRIMARY KEY,
  user_id uuid NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
  key_hash text NOT NULL UNIQUE,
  api_key text NOT NULL,
  position bigint NOT NULL,
  delivery_mode text NOT NULL DEFAULT 'poll' CHECK (delivery_mode IN ('poll', 'push')),
  webhook_url text,
  webhook_secret text,
  config_version integer NOT NULL DEFAULT 1,
  -- push delivery (src/Relay/Pusher.ts): failed attempts in a row, when to try again, a node's lease, the last error;
  -- times are the application Clock's, so tests drive the retry schedule
  push_attempts integer NOT NULL DEFAULT 0,
  push_next_at timestamptz,
  push_locked_until timestamptz,
  push_error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX relays_push_idx ON relays (push_next_at) WHERE delivery_mode = 'push';

CREATE TABLE relay_results (
  relay_id text NOT NULL REFERENCES relays (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('success', 'failed')),
  error_reason text,
  executed_at timestamptz,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (relay_id, event_id)
);
`).unprepared)
