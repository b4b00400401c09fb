import * as Migrator from "@effect/sql/Migrator"
import m0001 from "./0001_accounts.js"
import m0002 from "./0002_events.js"
import m0003 from "./0003_identity.js"
import m0004 from "./0004_event_fanouts.js"
import m0005 from "./0005_events_json_text.js"
import m0006 from "./0006_domains_unique_tld.js"
import m0007 from "./0007_projects.js"
import m0008 from "./0008_social.js"
import m0009 from "./0009_waves.js"
import m0010 from "./0010_ledger.js"
import m0011 from "./0011_read_notices.js"
import m0012 from "./0012_membership_consent.js"
import m0013 from "./0013_owner_ledger.js"
import m0014 from "./0014_relay.js"
import m0015 from "./0015_deadline_date_time.js"
import m0016 from "./0016_task_priority_team_description.js"
import m0017 from "./0017_console_sessions.js"
import m0018 from "./0018_api_key_names.js"

/** Forward-only: append new files here, never edit a landed one. */
export const loader = Migrator.fromRecord({
  "0001_accounts": m0001,
  "0002_events": m0002,
  "0003_identity": m0003,
  "0004_event_fanouts": m0004,
  "0005_events_json_text": m0005,
  "0006_domains_unique_tld": m0006,
  "0007_projects": m0007,
  "0008_social": m0008,
  "0009_waves": m0009,
  "0010_ledger": m0010,
  "0011_read_notices": m0011,
  "0012_membership_consent": m0012,
  "0013_owner_ledger": m0013,
  "0014_relay": m0014,
  "0015_deadline_date_time": m0015,
  "0016_task_priority_team_description": m0016,
  "0017_console_sessions": m0017,
  "0018_api_key_names": m0018
})
