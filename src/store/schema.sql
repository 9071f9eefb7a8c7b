-- culprit timeline schema. Embedded in the binary; this file's comments are the reference.
-- Conventions: sizes are bytes (INTEGER); times are wall-clock UTC seconds since the epoch
-- (REAL, fractional), NULL until known; `host` is the node name as the inputs give it
-- ('' when unknown). PRAGMA user_version is the schema version: culprit refuses a --db file
-- written with another version. PRAGMA application_id marks the file as culprit's ('CULP'):
-- culprit reads, or replaces, only a file that carries both, with each table below a table.
--
-- `incident` (in every table) is 0 in a one-incident timeline (`culprit diagnose --db`); a scan
-- database (`culprit scan --db`) holds many incidents, numbered from 1 and named in `incidents`.
PRAGMA user_version = 4;
PRAGMA application_id = 1129663568;

-- The incidents of a scan database (empty in a one-incident timeline).
CREATE TABLE incidents (
  id      INTEGER PRIMARY KEY,
  path    TEXT NOT NULL,      -- the archive or folder the incident was read from
  verdict TEXT NOT NULL,      -- the incident's verdict id
  report  TEXT NOT NULL       -- the diagnose JSON report of the incident
);

-- One row per source: a file, an archive member, or one segment of a paste.
CREATE TABLE sources (
  incident   INTEGER NOT NULL DEFAULT 0,
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,     -- display name: `spark-b/worker.log`, `<stdin>` segment `<stdin>:40`
  host       TEXT NOT NULL,     -- host the source belongs to ('' unknown)
  format     TEXT NOT NULL,     -- sniffed format id: kernel_log, app_log, nvidia_smi_table, free, docker_ps, …
  bytes      INTEGER NOT NULL,  -- size of the source's text
  lines      INTEGER NOT NULL,  -- number of lines
  first_line INTEGER NOT NULL DEFAULT 1,  -- line of the source's first line in its input (pastes)
  origin     TEXT NOT NULL DEFAULT '',    -- the input path it came from
  host_from  TEXT NOT NULL DEFAULT '',    -- where host came from: `folder name`, `--host`, `prompt`, `log lines`, `the only host named`
  first_ts   REAL,              -- earliest / latest wall time of its events (after alignment)
  last_ts    REAL,
  clock      TEXT NOT NULL DEFAULT ''     -- how most of its stamps were placed: wall | no-year | time-of-day | boot+offset | unplaced | none
);

-- One row per host seen in the inputs, with how its clocks were aligned.
CREATE TABLE hosts (
  incident   INTEGER NOT NULL DEFAULT 0,
  name             TEXT NOT NULL,
  boot_wall_ts     REAL,            -- wall time of boot (for boot-relative kernel stamps)
  clock_offset     REAL,            -- seconds added to this host's local times to reach UTC
  clock_confidence TEXT NOT NULL DEFAULT 'none',  -- high | medium | low | none
  clock_method     TEXT NOT NULL DEFAULT '',      -- what the alignment was based on
  unified_memory   INTEGER NOT NULL DEFAULT 0,    -- 1 when GPU memory is host memory (GB10, Jetson)
  PRIMARY KEY (incident, name)
);

-- One dated fact per row: a line or a multi-line block. A routine event that restates a fact
-- (a status line echoing the same setting from the same process) is stored the first 64 times an
-- input says it and counted after (store/restated_facts.hpp; the run's `timeline-restated` note).
CREATE TABLE events (
  incident   INTEGER NOT NULL DEFAULT 0,
  id        INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES sources(id),
  line      INTEGER NOT NULL,   -- 1-based line in the source's input (first line of a block)
  line_end  INTEGER NOT NULL,   -- last line of the block (= line for one-line events)
  ts        REAL,               -- wall-clock UTC seconds; NULL until aligned or unknown
  ts_raw    TEXT NOT NULL,      -- the stamp as written (`[  93.118204]`, `2026-04-09 00:47:13`)
  ts_kind   TEXT NOT NULL,      -- none | wall | wall_no_year | boot | time_of_day
  ts_value  REAL,               -- the raw stamp as a number (boot seconds, seconds of day, …)
  host      TEXT NOT NULL,
  pid       INTEGER,            -- process the line belongs to (from a prefix or the message)
  comm      TEXT NOT NULL,      -- process name as this source saw it ('' unknown)
  rank      INTEGER,            -- distributed rank, when a prefix names it
  kind      TEXT NOT NULL,      -- cuda_oom, kernel_oom, oom_kill, signal_exit, traceback, xid, nccl_timeout, peer_lost, log, …
  severity  TEXT NOT NULL,      -- debug | info | warning | error | critical
  rule      TEXT NOT NULL,      -- signal id or parser that produced it
  message   TEXT NOT NULL,      -- the text with transport prefixes peeled (blocks: the key line)
  fields    TEXT NOT NULL       -- JSON object of extracted fields (json_extract(fields, '$.x'))
);
-- The three indexes below are the timeline's at every moment a reader sees it; the ingest's
-- writer (store/timeline.cpp) drops them past a few thousand events and builds them again from
-- this text before its transaction commits (one sort costs less than a B-tree search per row).
-- By kind in line order (id: the same order as an index of kind alone, so no query's rows change
-- order), carrying the signal or parser (`rule`): rules ask for `kind = 'log' AND rule = …`, and
-- where one line in ten is a routine `log` event (a KV-cache reading) each such rule looked up
-- every one of them in the table for its rule; this reads it from the index.
CREATE INDEX events_kind ON events(kind, id, rule);
CREATE INDEX events_host_pid ON events(host, pid);
-- Per-source questions (a source's first / last time, the frames near an error line, the job's
-- identity from its sources' first events) look events up by source: without this, a paste of 10^4
-- prompt segments, each with its command event, costs 10^4 scans of the events.
CREATE INDEX events_source_line ON events(source_id, line);

-- One row per (host, pid): every name it was seen under and what the inputs say of it (records,
-- written by the ingest). The diagnosis' decisions about it are in process_roles; the view
-- `processes` joins the two.
CREATE TABLE process_records (
  incident   INTEGER NOT NULL DEFAULT 0,
  host      TEXT NOT NULL,
  pid       INTEGER NOT NULL,
  names     TEXT NOT NULL,      -- JSON array of names, most specific first
  cmdline   TEXT NOT NULL DEFAULT '',
  container TEXT NOT NULL DEFAULT '',
  user      TEXT NOT NULL DEFAULT '',
  state     TEXT NOT NULL DEFAULT '',      -- ps STAT (`Sl`, `T` stopped, `Z`); '' unknown
  started   REAL,                          -- start time from ps (lstart exact; `Apr08` as that day's end)
  elapsed   REAL,                          -- seconds it had run when ps listed it (etime)
  rss       INTEGER,                       -- resident bytes from ps
  ppid      INTEGER,                       -- parent pid from ps (1: re-parented to init); NULL unknown
  nspid     INTEGER,                       -- its pid inside its own pid namespace (NSpid's last, from a
                                           -- recorded /proc/PID/status); NULL unknown
  cgroup    TEXT NOT NULL DEFAULT '',      -- its cgroup's path (recorded /proc/PID/cgroup); '' unknown
  absent    INTEGER NOT NULL DEFAULT 0,    -- 1: /proc had no such pid when the snapshot read it from the
                                           -- host's pid namespace (gone, while nvidia-smi may list it)
  job_evidence TEXT NOT NULL DEFAULT '',      -- which job source named this pid ('' none)
  first_ts  REAL,
  last_ts   REAL,
  PRIMARY KEY (incident, host, pid)
);
-- Lookups by (host, pid) without the incident (joins from oom_tasks, gpu_processes, events):
-- the primary key cannot serve them, and a kernel task table of 10^5 rows made them quadratic.
CREATE INDEX process_records_host_pid ON process_records(host, pid);

-- The diagnosis' decision about a process (src/diagnose/roles.cpp): its role in the incident and
-- why. Rows are inserted once per diagnosis, never updated; a process without one is `unknown`.
CREATE TABLE process_roles (
  incident  INTEGER NOT NULL DEFAULT 0,
  host      TEXT NOT NULL,
  pid       INTEGER NOT NULL,
  role      TEXT NOT NULL,                -- job | foreign | unknown
  role_why  TEXT NOT NULL DEFAULT '',
  leftover  TEXT NOT NULL DEFAULT '',     -- why a GPU holder is a leftover (defunct, stopped, orphaned
                                          -- worker, nvidia-smi cannot name it); '' none
  container TEXT NOT NULL DEFAULT '',     -- the container the roles placed it in ('' none)
  PRIMARY KEY (incident, host, pid)
);

-- A process with its role: what the rules, the reports and `culprit query` read. The records'
-- container wins over the one the roles inferred. One table and lookups by primary key, not a
-- join: SQLite folds such a view into the query that reads it, so `LEFT JOIN processes p ON
-- p.host = … AND p.pid = t.pid` still uses process_records' index (a join in the view is
-- materialised instead: a 10^6-row task table took minutes).
CREATE VIEW processes AS
  SELECT r.incident, r.host, r.pid, r.names, r.cmdline,
         CASE WHEN r.container <> '' THEN r.container
              ELSE coalesce((SELECT d.container FROM process_roles d
                             WHERE d.incident = r.incident AND d.host = r.host AND d.pid = r.pid), '') END AS container,
         r.user, r.state, r.started, r.elapsed, r.rss, r.ppid, r.nspid, r.cgroup, r.absent,
         coalesce((SELECT d.role FROM process_roles d
                   WHERE d.incident = r.incident AND d.host = r.host AND d.pid = r.pid), 'unknown') AS role,
         coalesce((SELECT d.role_why FROM process_roles d
                   WHERE d.incident = r.incident AND d.host = r.host AND d.pid = r.pid), '') AS role_why,
         coalesce((SELECT d.leftover FROM process_roles d
                   WHERE d.incident = r.incident AND d.host = r.host AND d.pid = r.pid), '') AS leftover,
         r.job_evidence, r.first_ts, r.last_ts
  FROM process_records r;

-- Containers listed by `docker ps` / `docker inspect`.
CREATE TABLE containers (
  incident   INTEGER NOT NULL DEFAULT 0,
  host       TEXT NOT NULL,
  id         TEXT NOT NULL,
  name       TEXT NOT NULL,
  image      TEXT NOT NULL,
  command    TEXT NOT NULL,
  status     TEXT NOT NULL,
  up_seconds REAL,           -- how long it had been up when listed
  pod        TEXT NOT NULL DEFAULT '',  -- the Kubernetes pod it runs in (`crictl ps` POD); '' unknown
  namespace  TEXT NOT NULL DEFAULT ''   -- that pod's namespace (`crictl ps` NAMESPACE); '' unknown
);

-- One reading of one GPU (an nvidia-smi table row, CSV row, -q block, or the figures quoted
-- by a framework's OOM message).
CREATE TABLE gpu_snapshots (
  incident   INTEGER NOT NULL DEFAULT 0,
  id        INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES sources(id),
  line      INTEGER NOT NULL,
  host      TEXT NOT NULL,
  ts        REAL,
  ts_raw    TEXT NOT NULL,
  gpu       INTEGER NOT NULL,   -- GPU index on the host
  model     TEXT NOT NULL,
  bus_id    TEXT NOT NULL,      -- normalised `dddd:bb:dd` lower case ('' unknown)
  mem_used  INTEGER,            -- bytes; NULL when not reported (unified memory: "Not Supported")
  mem_total INTEGER,
  unified   INTEGER NOT NULL DEFAULT 0
);

-- The processes a snapshot lists, with their device memory.
CREATE TABLE gpu_processes (
  incident   INTEGER NOT NULL DEFAULT 0,
  snapshot_id INTEGER NOT NULL REFERENCES gpu_snapshots(id),
  pid         INTEGER NOT NULL,
  name        TEXT NOT NULL,
  type        TEXT NOT NULL,    -- C | G | C+G | '' (from an OOM message)
  mem_used    INTEGER           -- bytes; NULL for N/A
);

-- Host memory readings (`free`, /proc/meminfo).
CREATE TABLE host_memory (
  incident   INTEGER NOT NULL DEFAULT 0,
  source_id  INTEGER NOT NULL REFERENCES sources(id),
  line       INTEGER NOT NULL,
  host       TEXT NOT NULL,
  ts         REAL,
  total      INTEGER, used INTEGER, free INTEGER, shared INTEGER, buff_cache INTEGER, available INTEGER,
  swap_total INTEGER, swap_used INTEGER, swap_free INTEGER
);

-- One kernel OOM report (invoked line … kill line), tied to its `kernel_oom` event.
CREATE TABLE oom_reports (
  incident   INTEGER NOT NULL DEFAULT 0,
  event_id        INTEGER PRIMARY KEY REFERENCES events(id),  -- one report per event
  host            TEXT NOT NULL,
  ts              REAL,
  constraint_kind TEXT NOT NULL,   -- CONSTRAINT_NONE | CONSTRAINT_MEMCG | … ('' when the report lacks it)
  memcg           INTEGER NOT NULL,-- 1: a cgroup limit was hit (memcg OOM), 0: the host ran out
  reason          TEXT NOT NULL,   -- `Out of memory`, `Memory cgroup out of memory`, …
  oom_memcg       TEXT NOT NULL,   -- cgroup whose limit was hit ('' for global)
  task_memcg      TEXT NOT NULL,   -- victim's cgroup
  cpuset          TEXT NOT NULL,
  trigger_pid     INTEGER,         -- the allocating task (NOT the victim)
  trigger_comm    TEXT NOT NULL,
  gfp_mask        TEXT NOT NULL,
  alloc_order     INTEGER,         -- -1: sysrq / manual
  victim_pid      INTEGER,
  victim_comm     TEXT NOT NULL,
  victim_uid      INTEGER,
  victim_total_vm INTEGER,         -- bytes
  victim_anon_rss INTEGER,         -- bytes
  victim_file_rss INTEGER,
  victim_shmem_rss INTEGER,
  victim_oom_score_adj INTEGER,
  memcg_usage     INTEGER,         -- bytes (memory: usage …)
  memcg_limit     INTEGER,         -- bytes
  memcg_failcnt   INTEGER,
  page_size       INTEGER NOT NULL -- bytes per page used for the task table
);

-- The report's task table; sizes in pages as printed (multiply by oom_reports.page_size).
CREATE TABLE oom_tasks (
  incident   INTEGER NOT NULL DEFAULT 0,
  event_id       INTEGER NOT NULL REFERENCES oom_reports(event_id),
  pid            INTEGER NOT NULL,
  uid            INTEGER,
  tgid           INTEGER,
  total_vm_pages INTEGER,
  rss_pages      INTEGER,
  pgtables_bytes INTEGER,
  swapents       INTEGER,
  oom_score_adj  INTEGER,
  name           TEXT NOT NULL
);
CREATE INDEX oom_tasks_event ON oom_tasks(event_id);

-- Conclusions of the diagnosis rules (written after the diagnosis, for `culprit query`).
CREATE TABLE findings (
  incident   INTEGER NOT NULL DEFAULT 0,
  id           INTEGER PRIMARY KEY,
  rule         TEXT NOT NULL,
  verdict      TEXT NOT NULL,
  confidence   TEXT NOT NULL,
  host         TEXT NOT NULL,
  ts           REAL,
  culprit_host TEXT, culprit_pid INTEGER, culprit_name TEXT, culprit_role TEXT,
  summary      TEXT NOT NULL,
  evidence     TEXT NOT NULL,   -- JSON array of {source, line, text}
  echo         INTEGER NOT NULL DEFAULT 0  -- 1: a consequence of the root failure (the first finding)
);

-- Events with their source's name: what evidence columns are built from.
CREATE VIEW event_lines AS
  SELECT e.*, s.name AS source_name, s.format AS source_format
  FROM events e JOIN sources s ON s.id = e.source_id;
