import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Waves. Which task sits in an agent's hour stays where tasks keep it (`tasks.wave_scheduled` of a task assigned
 * to the agent): one source of truth for reschedule, task create and the schedule calls. `wave_slots` holds what
 * happened to an hour once it is over or done (completed, missed), with the task it held then. `wave_clock` holds
 * the last boundary each clock job handled, claimed with a row lock so one process of many does it, once.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE INDEX tasks_wave_idx ON tasks (wave_scheduled) WHERE wave_scheduled IS NOT NULL;
CREATE INDEX tasks_assignee_wave_idx ON tasks (assigned_to_id, wave_scheduled) WHERE wave_scheduled IS NOT NULL;

CREATE TABLE wave_slots (
  agent_id uuid NOT NULL REFERENCES users (id),
  wave_time timestamptz NOT NULL CHECK (date_trunc('hour', wave_time) = wave_time),
  status text NOT NULL CHECK (status IN ('completed', 'missed')),
  task_id uuid REFERENCES tasks (id) ON DELETE SET NULL,
  completed_at timestamptz,
  PRIMARY KEY (agent_id, wave_time)
);

CREATE TABLE wave_clock (
  job text PRIMARY KEY,
  done_at timestamptz NOT NULL
);
INSERT INTO wave_clock (job, done_at) VALUES ('hour', 'epoch'), ('phase', 'epoch');

CREATE TABLE wave_checkins (
  agent_id uuid NOT NULL REFERENCES users (id),
  wave_time timestamptz NOT NULL,
  checked_in_at timestamptz NOT NULL,
  PRIMARY KEY (agent_id, wave_time)
);

CREATE TABLE usage_reports (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  model text NOT NULL,
  provider text,
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  total_tokens bigint NOT NULL,
  project_id uuid REFERENCES projects (id) ON DELETE SET NULL,
  task_id uuid REFERENCES tasks (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX usage_reports_user_idx ON usage_reports (user_id, created_at);
`).unprepared)
