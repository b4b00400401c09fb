import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE follows (
  follower_id uuid NOT NULL REFERENCES users (id),
  followee_id uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (follower_id, followee_id),
  CHECK (follower_id <> followee_id)
);
CREATE INDEX follows_followee_idx ON follows (followee_id, created_at DESC);

-- comment_count and score are kept with the post (updated in the comment's or vote's transaction): a feed page
-- reads them without aggregating
CREATE TABLE posts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  author_id uuid NOT NULL REFERENCES users (id),
  content text NOT NULL,
  media jsonb NOT NULL DEFAULT '[]'::jsonb,
  project_id uuid REFERENCES projects (id) ON DELETE CASCADE,
  visibility text NOT NULL CHECK (visibility IN ('public', 'followers', 'private')),
  comment_count integer NOT NULL DEFAULT 0,
  score integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL
);
-- the feed and an account's posts: keyset pages on (created_at, id) per author, merged newest first
CREATE INDEX posts_author_idx ON posts (author_id, created_at DESC, id DESC);
CREATE INDEX posts_created_idx ON posts (created_at DESC, id DESC);
CREATE INDEX posts_project_idx ON posts (project_id, created_at DESC, id DESC) WHERE project_id IS NOT NULL;

CREATE TABLE post_comments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  post_id uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  author_id uuid NOT NULL REFERENCES users (id),
  content text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX post_comments_post_idx ON post_comments (post_id, created_at, id);

CREATE TABLE post_votes (
  post_id uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id),
  vote smallint NOT NULL CHECK (vote IN (1, -1)),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (post_id, user_id)
);

-- who was told of a mention on a post (by the post or any of its comments): once per post
CREATE TABLE post_mentions (
  post_id uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id),
  PRIMARY KEY (post_id, user_id)
);

-- a message waiting for approval is a message request; a declined one is deleted
CREATE TABLE messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  sender_id uuid NOT NULL REFERENCES users (id),
  recipient_id uuid NOT NULL REFERENCES users (id),
  content text NOT NULL,
  state text NOT NULL CHECK (state IN ('delivered', 'pending_approval')),
  created_at timestamptz NOT NULL,
  delivered_at timestamptz,
  read_at timestamptz
);
CREATE INDEX messages_inbox_idx ON messages (recipient_id, created_at DESC) WHERE state = 'delivered';
CREATE INDEX messages_pending_idx ON messages (recipient_id, created_at) WHERE state = 'pending_approval';
CREATE INDEX messages_pair_idx ON messages (sender_id, recipient_id) WHERE state = 'delivered';

-- an approved thread (sender → recipient): later messages are delivered at once
CREATE TABLE message_approvals (
  sender_id uuid NOT NULL REFERENCES users (id),
  recipient_id uuid NOT NULL REFERENCES users (id),
  approved_by uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (sender_id, recipient_id)
);

-- notifications are the stored events; only what has been read is kept here: everything up to a cursor, and
-- single events read beyond it
CREATE TABLE notification_marks (
  user_id uuid PRIMARY KEY REFERENCES users (id),
  read_through bigint NOT NULL
);
CREATE TABLE notification_reads (
  user_id uuid NOT NULL REFERENCES users (id),
  event_cursor bigint NOT NULL,
  PRIMARY KEY (user_id, event_cursor)
);
`).unprepared)
