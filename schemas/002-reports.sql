-- Reports: patch series taken from lists, the mails sent about results, the site.

-- A patch series from a public-inbox, a drop directory or `bootgate series`.
CREATE TABLE series (
	id INTEGER PRIMARY KEY,
	tree_id INTEGER REFERENCES trees(id),
	message_id TEXT NOT NULL UNIQUE,   -- the cover letter's, else patch 1's; no <>
	version INTEGER NOT NULL DEFAULT 1,
	total INTEGER NOT NULL,            -- N of [PATCH vV M/N]
	subject TEXT NOT NULL,             -- the cover letter's subject, else patch 1's
	author TEXT,                       -- "Name <addr>", decoded
	title TEXT,                        -- the subject after its [PATCH ...] tag
	addr TEXT,                         -- the author's address: with title, what makes
	                                   -- a later version of the same series
	source TEXT NOT NULL,              -- inbox:NAME, drop:FILE, cli
	base TEXT,                         -- the commit applied to, once known
	patchset_hash TEXT,                -- sha256 over the patches' sha256s, in order (KCIDB)
	board TEXT,
	mode TEXT,
	state TEXT NOT NULL DEFAULT 'queued',  -- queued, running, done, failed, superseded
	superseded_by INTEGER REFERENCES series(id),
	error TEXT,
	result TEXT,                       -- the `bootgate series --json` object
	created REAL NOT NULL,
	finished REAL
);
CREATE INDEX series_by_title ON series(title, addr);

-- One row per patch of a series, idx 1..N; idx 0 is the cover letter when there is one.
CREATE TABLE series_patches (
	series_id INTEGER NOT NULL REFERENCES series(id),
	idx INTEGER NOT NULL,
	message_id TEXT NOT NULL,
	subject TEXT NOT NULL,
	author TEXT,
	mbox TEXT NOT NULL,                -- the message as it came, for applying and replying
	commit_sha TEXT,                   -- the tree after this patch
	status TEXT,                       -- applied, failed (does not apply), skipped (after one)
	error TEXT,                        -- why it did not apply, naming the file
	comparison_id INTEGER REFERENCES comparisons(id),  -- against the tree before it
	verdict TEXT,                      -- regression, improvement, same, unknown
	metric TEXT,                       -- the metric that moved most
	delta REAL,                        -- its change, µs
	PRIMARY KEY (series_id, idx)
) WITHOUT ROWID;

-- A public-inbox followed: the last commit read in each epoch's repository.
CREATE TABLE inbox_cursors (
	inbox TEXT NOT NULL,
	epoch INTEGER NOT NULL,
	last_commit TEXT NOT NULL,
	PRIMARY KEY (inbox, epoch)
) WITHOUT ROWID;

-- Patch mails seen but not yet a whole series: kept until every patch of it is there.
CREATE TABLE inbox_messages (
	message_id TEXT PRIMARY KEY,
	inbox TEXT NOT NULL,
	in_reply_to TEXT,
	thread TEXT,                       -- the Message-ID the series hangs from
	version INTEGER NOT NULL,
	idx INTEGER NOT NULL,
	total INTEGER NOT NULL,
	subject TEXT NOT NULL,
	author TEXT,
	mbox TEXT NOT NULL,
	sha256 TEXT NOT NULL,              -- of mbox: the series' patchset_hash is made of these
	epoch INTEGER NOT NULL,            -- where it was read: the epoch and its commit
	commit_sha TEXT NOT NULL,
	series_id INTEGER REFERENCES series(id),   -- set once assembled
	seen REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX inbox_messages_by_thread ON inbox_messages(inbox, thread, version, total);

-- A mail made from an outbox row: composed once, then sent until the server takes it.
CREATE TABLE mails (
	id INTEGER PRIMARY KEY,
	outbox_id INTEGER NOT NULL UNIQUE REFERENCES outbox(id),
	about TEXT NOT NULL UNIQUE,        -- "culprit SHA METRIC", "series ID": one mail each
	message_id TEXT NOT NULL UNIQUE,   -- ours, no <>
	subject TEXT NOT NULL,             -- as composed, decoded
	mail_from TEXT NOT NULL,           -- envelope sender
	rcpt TEXT NOT NULL,                -- envelope recipients, one per line
	message TEXT NOT NULL,             -- headers and body, CRLF, as sent
	attempts INTEGER NOT NULL DEFAULT 0,
	not_before REAL NOT NULL DEFAULT 0,
	error TEXT,                        -- the last failure
	sent REAL
);
CREATE INDEX mails_unsent ON mails(not_before) WHERE sent IS NULL;

-- Outbox rows the reporter has looked at (mailed, or decided not to) are marked done.
ALTER TABLE outbox ADD COLUMN done REAL;
ALTER TABLE outbox ADD COLUMN note TEXT;   -- why no mail was made, when none was

-- A series job runs one series; a comparison names its tree (for the site's pages).
ALTER TABLE jobs ADD COLUMN series_id INTEGER REFERENCES series(id);
ALTER TABLE comparisons ADD COLUMN tree_id INTEGER REFERENCES trees(id);
