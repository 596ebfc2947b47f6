-- The store: everything the service knows, so that a kill at any moment loses nothing.
-- Times are Unix seconds (REAL). Commit ids are full 40-hex strings.

-- A tree the daemon watches, or one a person measured by hand (url NULL).
CREATE TABLE trees (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	path TEXT NOT NULL,             -- the repository the builds read
	url TEXT,
	branch TEXT,
	last_good TEXT,                 -- the commit new tips are gated against
	last_tip TEXT,                  -- the last tip seen by a fetch or a trigger
	fetched_at REAL,
	fetch_failures INTEGER NOT NULL DEFAULT 0,
	fetch_error TEXT
);

CREATE TABLE commits (
	sha TEXT PRIMARY KEY,
	parent TEXT,
	subject TEXT,
	author TEXT
) WITHOUT ROWID;

-- One row per build a worker did (reused = 1: the worker found the image already built).
CREATE TABLE builds (
	id INTEGER PRIMARY KEY,
	commit_sha TEXT NOT NULL,
	board TEXT NOT NULL,
	status TEXT NOT NULL,           -- built, failed, usage, infra, exec
	config_hash TEXT,
	image TEXT,
	image_sha256 TEXT,
	reused INTEGER NOT NULL DEFAULT 0,
	ccache_hits INTEGER,
	ccache_misses INTEGER,
	seconds REAL,
	log TEXT,
	error TEXT,
	created REAL NOT NULL
);
CREATE INDEX builds_by_commit ON builds(commit_sha, board);

-- A boot belongs to the image it booted: a commit whose image is byte-identical to
-- another's shares its boots.
CREATE TABLE boots (
	id INTEGER PRIMARY KEY,
	image_sha256 TEXT NOT NULL,
	board TEXT NOT NULL,
	mode TEXT NOT NULL,             -- deterministic, timing
	outcome TEXT NOT NULL,          -- complete, panic, hang, infra
	wall_s REAL,
	console TEXT,
	created REAL NOT NULL
);
CREATE INDEX boots_by_image ON boots(image_sha256, board, mode);

CREATE TABLE samples (
	boot_id INTEGER NOT NULL REFERENCES boots(id),
	seq INTEGER NOT NULL,           -- the metric's place in its boot
	metric TEXT NOT NULL,
	value REAL NOT NULL,            -- µs
	PRIMARY KEY (boot_id, seq)
) WITHOUT ROWID;

CREATE TABLE bisections (
	id INTEGER PRIMARY KEY,
	tree_id INTEGER NOT NULL REFERENCES trees(id),
	good TEXT NOT NULL,
	bad TEXT NOT NULL,
	board TEXT NOT NULL,
	mode TEXT NOT NULL,
	asked_metric TEXT,              -- --metric, or NULL: the endpoints choose
	metric TEXT,                    -- the metric bisected, once chosen
	parent_id INTEGER REFERENCES bisections(id),   -- inside the branch a merge brought
	state TEXT NOT NULL DEFAULT 'running',         -- running, done, failed
	outcome TEXT,
	culprit TEXT,
	confidence REAL,
	result TEXT,                    -- the --json object
	error TEXT,
	created REAL NOT NULL,
	finished REAL
);

-- The first-parent chain: idx 0 is good, the last is bad.
CREATE TABLE bisection_commits (
	bisection_id INTEGER NOT NULL REFERENCES bisections(id),
	idx INTEGER NOT NULL,
	sha TEXT NOT NULL,
	PRIMARY KEY (bisection_id, idx)
) WITHOUT ROWID;

-- What the engine was told, in order: replayed on a restart, never serialised state.
CREATE TABLE bisection_reports (
	bisection_id INTEGER NOT NULL REFERENCES bisections(id),
	seq INTEGER NOT NULL,
	idx INTEGER NOT NULL,
	kind TEXT NOT NULL,             -- built, unbuildable, value, infra
	build_id INTEGER REFERENCES builds(id),
	boot_id INTEGER REFERENCES boots(id),
	value REAL,                     -- µs, for a value
	PRIMARY KEY (bisection_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX bisection_boot_once ON bisection_reports(bisection_id, idx, boot_id)
	WHERE boot_id IS NOT NULL;

CREATE TABLE comparisons (
	id INTEGER PRIMARY KEY,
	job_id INTEGER REFERENCES jobs(id),
	base TEXT NOT NULL,
	cand TEXT NOT NULL,
	board TEXT NOT NULL,
	mode TEXT NOT NULL,
	verdict TEXT NOT NULL,          -- regression, same, unknown
	metric TEXT,                    -- the worst metric
	delta REAL,
	result TEXT,
	created REAL NOT NULL
);

CREATE TABLE jobs (
	id INTEGER PRIMARY KEY,
	kind TEXT NOT NULL,             -- gate, bisect
	origin TEXT NOT NULL DEFAULT 'fetch',   -- fetch, gate (a regression), rerun
	tree_id INTEGER NOT NULL REFERENCES trees(id),
	rev TEXT,                       -- the commit gated, or the bad end of a bisection
	base TEXT,                      -- what it is gated against, or the good end
	bisection_id INTEGER REFERENCES bisections(id),
	state TEXT NOT NULL DEFAULT 'queued',   -- queued, running, done, failed
	attempts INTEGER NOT NULL DEFAULT 0,
	not_before REAL NOT NULL DEFAULT 0,
	pid INTEGER,
	error TEXT,
	created REAL NOT NULL,
	started REAL,
	finished REAL
);
CREATE INDEX jobs_by_state ON jobs(state, not_before);

-- Reports to send (the mail and the site): written with the result, sent once.
CREATE TABLE outbox (
	id INTEGER PRIMARY KEY,
	kind TEXT NOT NULL,
	ref INTEGER,
	body TEXT NOT NULL,
	created REAL NOT NULL,
	sent REAL
);

CREATE TABLE events (
	id INTEGER PRIMARY KEY,
	at REAL NOT NULL,
	level TEXT NOT NULL,
	tree_id INTEGER,
	job_id INTEGER,
	message TEXT NOT NULL
);
