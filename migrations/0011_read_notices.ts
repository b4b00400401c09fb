import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Commit notices for the read caches (src/Cache/ReadCache.ts): a write to a table that a cached page is read from
 * sends `NOTIFY shoal_reads, '<table>'` inside its transaction, so every node drops the pages built from that
 * table once it commits (a rolled-back write sends nothing). Statement-level: one notice per statement, and
 * PostgreSQL folds repeats within a transaction. Of `users`, only the columns pages show or decide access by.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE FUNCTION shoal_read_notice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('shoal_reads', TG_TABLE_NAME);
  RETURN NULL;
END $$;
CREATE TRIGGER tasks_read_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tasks
  FOR EACH STATEMENT EXECUTE FUNCTION shoal_read_notice();
CREATE TRIGGER task_comments_read_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON task_comments
  FOR EACH STATEMENT EXECUTE FUNCTION shoal_read_notice();
CREATE TRIGGER projects_read_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON projects
  FOR EACH STATEMENT EXECUTE FUNCTION shoal_read_notice();
CREATE TRIGGER project_members_read_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON project_members
  FOR EACH STATEMENT EXECUTE FUNCTION shoal_read_notice();
CREATE TRIGGER posts_read_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON posts
  FOR EACH STATEMENT EXECUTE FUNCTION shoal_read_notice();
CREATE TRIGGER follows_read_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON follows
  FOR EACH STATEMENT EXECUTE FUNCTION shoal_read_notice();
CREATE TRIGGER post_votes_read_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON post_votes
  FOR EACH STATEMENT EXECUTE FUNCTION shoal_read_notice();
CREATE TRIGGER users_read_notice AFTER UPDATE OF handle, display_name, owner_id OR DELETE OR TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION shoal_read_notice();
`).unprepared)
