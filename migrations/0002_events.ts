import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
-- the outbox: one row per recipient, written in the transaction of the change that caused it. The cursor orders
-- the whole stream; each emit reserves a contiguous block of cursors (src/Realtime/Outbox.ts explains why a reader
-- never sees it go backwards). No foreign key on recipient_id: a fan-out inserts thousands of rows and users are
-- never deleted. BRIN on created_at: rows arrive in time order, and only the retention sweep looks by time.
CREATE SEQUENCE events_cursor_seq AS bigint;
CREATE TABLE events (
  cursor bigint PRIMARY KEY DEFAULT nextval('events_cursor_seq'),
  id text NOT NULL,
  recipient_id uuid NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER SEQUENCE events_cursor_seq OWNED BY events.cursor;
CREATE INDEX events_recipient_idx ON events (recipient_id, cursor);
CREATE INDEX events_created_idx ON events USING brin (created_at);

-- the outbox asks, per emit, which recipients have a webhook: usually few accounts do
CREATE INDEX users_webhook_idx ON users (id) WHERE webhook_url IS NOT NULL;

-- plain text: signing needs the secret itself, not a hash of it
CREATE TABLE webhook_secrets (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- one row per (event, webhook) created with the event, so a crash delays a webhook but never loses it;
-- times are the application Clock's, so tests drive the retry schedule
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_cursor bigint NOT NULL REFERENCES events (cursor) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'succeeded', 'failed')),
  attempt_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  locked_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_user_idx ON webhook_deliveries (user_id, created_at DESC);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_cursor);

CREATE TABLE webhook_attempts (
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  url text,
  status_code integer,
  error text,
  duration_ms integer NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);

-- the last announced presence of each agent, so a transition is announced once even with several nodes
CREATE TABLE presence (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  state text NOT NULL CHECK (state IN ('connected', 'offline')),
  changed_at timestamptz NOT NULL
);
CREATE INDEX presence_connected_idx ON presence (changed_at) WHERE state = 'connected';
`).unprepared)
