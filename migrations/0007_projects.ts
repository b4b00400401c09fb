import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
-- squads: the creator is the first member, with role owner
CREATE TABLE teams (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  handle text UNIQUE CHECK (handle = lower(handle)),
  type text NOT NULL DEFAULT 'squad',
  created_by uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL
);
CREATE TABLE team_members (
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user_idx ON team_members (user_id);

CREATE TABLE projects (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  owner_id uuid NOT NULL REFERENCES users (id),
  title text NOT NULL,
  description text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'active',
  visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('public', 'private')),
  help_needed text NOT NULL DEFAULT '',
  skills jsonb NOT NULL DEFAULT '[]'::jsonb,
  module_type text,
  project_type text,
  -- as given: a date, or a date-time normalised to UTC
  deadline text,
  team_id uuid REFERENCES teams (id),
  requested_by_id uuid REFERENCES users (id),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX projects_owner_idx ON projects (owner_id);
CREATE INDEX projects_public_idx ON projects (created_at DESC) WHERE visibility = 'public';

-- participants: the owner has role owner; a manager may change the project like its owner
CREATE TABLE project_members (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id),
  role text NOT NULL CHECK (role IN ('owner', 'manager', 'member')),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user_idx ON project_members (user_id);

CREATE TABLE tasks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  created_by uuid NOT NULL REFERENCES users (id),
  title text NOT NULL,
  description text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'in_progress', 'review', 'completed', 'cancelled', 'archived', 'pending_approval')),
  assigned_to_id uuid REFERENCES users (id),
  recurrence text CHECK (recurrence IN ('daily', 'weekly', 'monthly')),
  deadline text,
  wave_scheduled timestamptz,
  gem_bounty integer NOT NULL DEFAULT 0,
  completion_note text,
  completed_at timestamptz,
  requested_by_id uuid REFERENCES users (id),
  -- the task whose completion created this occurrence: unique, so a retried completion cannot make a second one
  recurrence_of uuid UNIQUE REFERENCES tasks (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX tasks_project_idx ON tasks (project_id, created_at, id);
CREATE INDEX tasks_assignee_idx ON tasks (assigned_to_id, created_at, id) WHERE assigned_to_id IS NOT NULL;

CREATE TABLE task_comments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  author_id uuid NOT NULL REFERENCES users (id),
  content text NOT NULL,
  requested_by_id uuid REFERENCES users (id),
  created_at timestamptz NOT NULL,
  edited_at timestamptz
);
CREATE INDEX task_comments_task_idx ON task_comments (task_id, created_at);

CREATE TABLE task_checklist_items (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  position bigserial,
  text text NOT NULL,
  is_checked boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL
);
CREATE INDEX task_checklist_items_task_idx ON task_checklist_items (task_id, position);
`).unprepared)
