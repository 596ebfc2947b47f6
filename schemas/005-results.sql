-- Results as rows with columns, read back into typed structs (lib/store/results.c) and
-- never as JSON documents: a comparison's verdicts, one row a metric; what explains a
-- change of boot.init; the boots each side counted; a bisection's range, its work and
-- its confirmations; a series' patches and its whole. The JSON of --json, of the site and
-- of the export is written from those structs. Rows stored before this migration are
-- moved from their JSON here, then the JSON columns are dropped.

-- ---- one parse per boot: what the boot worker read is what every later stage uses ----

-- When each initcall and probe ran (printk time, µs) and the line of the console that
-- gave it, so that the site draws timelines and a mail quotes the kernel's own line
-- without parsing the console again.
ALTER TABLE samples ADD COLUMN start_us REAL;
ALTER TABLE samples ADD COLUMN end_us REAL;
ALTER TABLE samples ADD COLUMN line INTEGER;
-- The kernel's release and build ("6.1.0 #1 SMP ...") and its command line.
ALTER TABLE boots ADD COLUMN kernel TEXT;
ALTER TABLE boots ADD COLUMN cmdline TEXT;

-- ---- comparisons ----

-- role: gate (a tip against the last good commit), series (a patch against the tree
-- before it, or the whole series), step (a bisection's culprit against its parent, in
-- the bisection's mode), timing (the same in timing mode, after a deterministic
-- bisection), revert (the bad tip with the culprit reverted as the base, the bad tip as
-- the candidate: what the revert takes back is the candidate's excess).
ALTER TABLE comparisons ADD COLUMN role TEXT NOT NULL DEFAULT 'gate';
ALTER TABLE comparisons ADD COLUMN bisection_id INTEGER REFERENCES bisections(id);
ALTER TABLE comparisons ADD COLUMN console_mode TEXT NOT NULL DEFAULT 'verbose';
-- boots that counted (reached init) and boots left out, of each side
ALTER TABLE comparisons ADD COLUMN boots_base INTEGER NOT NULL DEFAULT 0;
ALTER TABLE comparisons ADD COLUMN boots_cand INTEGER NOT NULL DEFAULT 0;
ALTER TABLE comparisons ADD COLUMN excluded_base INTEGER NOT NULL DEFAULT 0;
ALTER TABLE comparisons ADD COLUMN excluded_cand INTEGER NOT NULL DEFAULT 0;
CREATE INDEX comparisons_by_bisection ON comparisons(bisection_id, role);

-- One metric of a comparison (decide/verdict.h): rank is its place in the comparison's
-- order (different, unknown, same; by the size of the change). NULL figures are NaN.
CREATE TABLE verdicts (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id),
	rank INTEGER NOT NULL,
	metric TEXT NOT NULL,
	verdict TEXT NOT NULL,             -- different, same, unknown
	base_median REAL,
	cand_median REAL,
	mad_base REAL,                     -- each side's median absolute deviation, µs
	mad_cand REAL,
	delta REAL,                        -- µs, the Hodges-Lehmann shift (exact: the difference)
	delta_pct REAL,                    -- of the base (good) side
	ci_lo REAL,
	ci_hi REAL,
	p REAL,
	q REAL,
	n_base INTEGER NOT NULL DEFAULT 0,
	n_cand INTEGER NOT NULL DEFAULT 0,
	more_boots INTEGER NOT NULL DEFAULT 0,
	exact INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (comparison_id, rank)
) WITHOUT ROWID;
CREATE INDEX verdicts_by_metric ON verdicts(comparison_id, metric);

-- What explains a change of boot.init: each metric's shift and its share of it.
CREATE TABLE attributions (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id),
	rank INTEGER NOT NULL,
	metric TEXT NOT NULL,
	delta REAL,
	share REAL,
	PRIMARY KEY (comparison_id, rank)
) WITHOUT ROWID;

-- The boots each side of a comparison had, in the order they ran.
CREATE TABLE comparison_boots (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id),
	seq INTEGER NOT NULL,
	side TEXT NOT NULL,                -- base, cand
	boot_id INTEGER REFERENCES boots(id),
	PRIMARY KEY (comparison_id, seq)
) WITHOUT ROWID;

-- ---- bisections ----

ALTER TABLE bisections ADD COLUMN range_first INTEGER;   -- bisection_commits.idx
ALTER TABLE bisections ADD COLUMN range_last INTEGER;
ALTER TABLE bisections ADD COLUMN builds INTEGER;         -- builds it made
ALTER TABLE bisections ADD COLUMN boots INTEGER;          -- boots it was told of
ALTER TABLE bisections ADD COLUMN wall_s REAL;
ALTER TABLE bisections ADD COLUMN exact INTEGER NOT NULL DEFAULT 0;   -- one boot a probe
ALTER TABLE bisections ADD COLUMN merge_commit TEXT;      -- the culprit was this merge's branch
ALTER TABLE bisections ADD COLUMN revert_applies INTEGER; -- NULL: not tried
ALTER TABLE bisections ADD COLUMN revert_commit TEXT;
ALTER TABLE bisections ADD COLUMN regression_us REAL;     -- bad minus good: what a revert
                                                          -- is judged against

-- ---- series ----

ALTER TABLE series ADD COLUMN base_from TEXT;             -- where the base came from
ALTER TABLE series ADD COLUMN base_image_sha256 TEXT;
ALTER TABLE series ADD COLUMN base_boots INTEGER;         -- boots of the base that counted
ALTER TABLE series ADD COLUMN boots_per_commit INTEGER;
ALTER TABLE series ADD COLUMN whole_comparison_id INTEGER REFERENCES comparisons(id);
ALTER TABLE series_patches ADD COLUMN image_sha256 TEXT;
ALTER TABLE series_patches ADD COLUMN boots INTEGER;

-- ---- stores made before: their JSON into the rows above ----

-- A result that is not JSON moves nothing (json_each over '{}' gives no row), and an
-- element of a list that is not an object is read as '{}': json_extract of a plain string
-- is an error, and one odd row would keep the whole store from opening.
CREATE TEMP VIEW old_cmp AS
	SELECT id, CASE WHEN json_valid(result) THEN result ELSE '{}' END j,
	       CASE WHEN json_valid(result) AND json_type(result, '$.comparison') = 'object'
		    THEN '$.comparison' ELSE '$' END at
	FROM comparisons WHERE result IS NOT NULL;
CREATE TEMP VIEW old_verdict AS
	SELECT c.id, v.key, CASE v.type WHEN 'object' THEN v.value ELSE '{}' END o
	FROM old_cmp c, json_each(c.j, c.at || '.verdicts') v WHERE typeof(v.key) = 'integer';
CREATE TEMP VIEW old_attribution AS
	SELECT c.id, a.key, CASE a.type WHEN 'object' THEN a.value ELSE '{}' END o
	FROM old_cmp c, json_each(c.j, c.at || '.attribution') a WHERE typeof(a.key) = 'integer';
CREATE TEMP VIEW old_boot AS
	SELECT c.id, b.key, CASE b.type WHEN 'object' THEN b.value ELSE '{}' END o
	FROM old_cmp c, json_each(c.j, '$.boots') b
	WHERE c.at = '$.comparison' AND typeof(b.key) = 'integer';

INSERT INTO verdicts (comparison_id, rank, metric, verdict, base_median, cand_median, delta,
		      delta_pct, ci_lo, ci_hi, p, q, n_base, n_cand, more_boots, exact)
	SELECT v.id, v.key, json_extract(v.o, '$.metric'),
	       coalesce(json_extract(v.o, '$.verdict'), 'unknown'),
	       json_extract(v.o, '$.base_median'), json_extract(v.o, '$.cand_median'),
	       json_extract(v.o, '$.delta'), json_extract(v.o, '$.delta_pct'),
	       json_extract(v.o, '$.ci[0]'), json_extract(v.o, '$.ci[1]'),
	       json_extract(v.o, '$.p'), json_extract(v.o, '$.q'),
	       coalesce(json_extract(v.o, '$.n_base'), 0),
	       coalesce(json_extract(v.o, '$.n_cand'), 0),
	       coalesce(json_extract(v.o, '$.more_boots'), 0),
	       coalesce(json_extract(v.o, '$.exact'), 0)
	FROM old_verdict v WHERE json_type(v.o, '$.metric') = 'text';

INSERT INTO attributions (comparison_id, rank, metric, delta, share)
	SELECT a.id, a.key, json_extract(a.o, '$.metric'), json_extract(a.o, '$.delta'),
	       json_extract(a.o, '$.share')
	FROM old_attribution a WHERE json_type(a.o, '$.metric') = 'text';

UPDATE comparisons SET
	boots_base = coalesce((SELECT json_extract(c.j, c.at || '.boots.base') FROM old_cmp c
			       WHERE c.id = comparisons.id), 0),
	boots_cand = coalesce((SELECT json_extract(c.j, c.at || '.boots.cand') FROM old_cmp c
			       WHERE c.id = comparisons.id), 0),
	excluded_base = coalesce((SELECT json_extract(c.j, c.at || '.boots.base_excluded')
				  FROM old_cmp c WHERE c.id = comparisons.id), 0),
	excluded_cand = coalesce((SELECT json_extract(c.j, c.at || '.boots.cand_excluded')
				  FROM old_cmp c WHERE c.id = comparisons.id), 0),
	console_mode = coalesce((SELECT json_extract(c.j, '$.console') FROM old_cmp c
				 WHERE c.id = comparisons.id AND
				       json_extract(c.j, '$.console') IN ('verbose', 'quiet')),
				'verbose');
-- a series' comparisons are the ones its patches name, and its whole's
UPDATE comparisons SET role = 'series'
	WHERE id IN (SELECT comparison_id FROM series_patches WHERE comparison_id IS NOT NULL)
	   OR id IN (SELECT json_extract(CASE WHEN json_valid(result) THEN result ELSE '{}' END,
					 '$.whole.comparison') FROM series);

-- A gate's boots, by the console each was read from.
INSERT INTO comparison_boots (comparison_id, seq, side, boot_id)
	SELECT b.id, b.key,
	       CASE json_extract(b.o, '$.side') WHEN 'against' THEN 'base' ELSE 'cand' END,
	       (SELECT o.id FROM boots o WHERE o.console = json_extract(b.o, '$.parsed.file')
		ORDER BY o.id LIMIT 1)
	FROM old_boot b;

CREATE TEMP VIEW old_initcall AS
	SELECT b.id, b.key seq, i.key, CASE i.type WHEN 'object' THEN i.value ELSE '{}' END o
	FROM old_boot b, json_each(b.o, '$.parsed.initcalls') i WHERE typeof(i.key) = 'integer';
-- When each initcall ran, from the parsed boots a gate kept; "#K" for the K-th call of a
-- name, as parse/metrics.c names them.
UPDATE samples SET start_us = x.start_us, end_us = x.end_us FROM (
	SELECT cb.boot_id, 'initcall.' || json_extract(i.o, '$.name') ||
	       CASE WHEN row_number() OVER w > 1 THEN '#' || row_number() OVER w ELSE '' END
	       AS metric,
	       json_extract(i.o, '$.start_us') AS start_us,
	       json_extract(i.o, '$.end_us') AS end_us
	FROM old_initcall i
	JOIN comparison_boots cb ON cb.comparison_id = i.id AND cb.seq = i.seq
	WHERE cb.boot_id IS NOT NULL
	WINDOW w AS (PARTITION BY i.id, i.seq, json_extract(i.o, '$.name') ORDER BY i.key)
) x WHERE samples.boot_id = x.boot_id AND samples.metric = x.metric;

DROP VIEW old_initcall;
DROP VIEW old_boot;
DROP VIEW old_attribution;
DROP VIEW old_verdict;
DROP VIEW old_cmp;

-- A bisection's figures and its confirmations: each confirmation a comparison of one
-- metric (and boot.init) with its verdicts.
CREATE TEMP VIEW old_bis AS
	SELECT id, tree_id, board, mode, metric, culprit, console_mode, bad, j,
	       -- figures that are numbers, or none (a string is no 0)
	       CASE WHEN json_type(j, '$.confirmation.delta_us') IN ('integer', 'real')
		    THEN json_extract(j, '$.confirmation.delta_us') END delta_us,
	       CASE WHEN json_type(j, '$.confirmation.revert.delta_us') IN ('integer', 'real')
		    THEN json_extract(j, '$.confirmation.revert.delta_us') END revert_delta_us
	FROM (SELECT *, CASE WHEN json_valid(result) THEN result ELSE '{}' END j
	      FROM bisections WHERE result IS NOT NULL);

UPDATE bisections SET
	range_first = (SELECT c.idx FROM bisection_commits c, old_bis o WHERE o.id = bisections.id
		       AND c.bisection_id = o.id AND c.sha = json_extract(o.j, '$.range[0]')),
	range_last = (SELECT c.idx FROM bisection_commits c, old_bis o WHERE o.id = bisections.id
		      AND c.bisection_id = o.id AND
		      c.sha = json_extract(o.j, '$.range[#-1]')),
	builds = (SELECT json_extract(j, '$.builds') FROM old_bis o WHERE o.id = bisections.id),
	boots = (SELECT json_extract(j, '$.boots') FROM old_bis o WHERE o.id = bisections.id),
	wall_s = (SELECT json_extract(j, '$.wall_s') FROM old_bis o WHERE o.id = bisections.id),
	exact = coalesce((SELECT json_extract(j, '$.exact') FROM old_bis o
			  WHERE o.id = bisections.id), 0),
	merge_commit = (SELECT json_extract(j, '$.merge') FROM old_bis o WHERE o.id = bisections.id),
	revert_applies = (SELECT json_extract(j, '$.confirmation.revert.applies') FROM old_bis o
			  WHERE o.id = bisections.id),
	revert_commit = (SELECT json_extract(j, '$.confirmation.revert.commit') FROM old_bis o
			 WHERE o.id = bisections.id),
	regression_us = (SELECT json_extract(j, '$.confirmation.revert.regression_us')
			 FROM old_bis o WHERE o.id = bisections.id);

-- the timing confirmation: the culprit against its parent
INSERT INTO comparisons (base, cand, board, mode, verdict, metric, delta, created, tree_id,
			 role, bisection_id, console_mode, boots_base, boots_cand)
	SELECT coalesce(cm.parent, ''), o.culprit, o.board, 'timing',
	       json_extract(o.j, '$.confirmation.verdict'), o.metric,
	       o.delta_us, coalesce(b.finished, b.created), o.tree_id, 'timing', o.id,
	       o.console_mode, coalesce(json_extract(o.j, '$.confirmation.boots'), 0),
	       coalesce(json_extract(o.j, '$.confirmation.boots'), 0)
	FROM old_bis o JOIN bisections b ON b.id = o.id LEFT JOIN commits cm ON cm.sha = o.culprit
	WHERE json_type(o.j, '$.confirmation.verdict') = 'text' AND o.metric IS NOT NULL AND
	      o.culprit IS NOT NULL;
-- the revert: its commit the base, the bad tip the candidate (the old JSON had them the
-- other way round: its figures are swapped)
INSERT INTO comparisons (base, cand, board, mode, verdict, metric, delta, created, tree_id,
			 role, bisection_id, console_mode, boots_base, boots_cand)
	SELECT json_extract(o.j, '$.confirmation.revert.commit'), o.bad, o.board,
	       coalesce(json_extract(o.j, '$.confirmation.revert.mode'), o.mode),
	       json_extract(o.j, '$.confirmation.revert.verdict'), o.metric,
	       -o.revert_delta_us, coalesce(b.finished, b.created), o.tree_id, 'revert', o.id,
	       o.console_mode,
	       coalesce(json_extract(o.j, '$.confirmation.revert.boots'), 0),
	       coalesce(json_extract(o.j, '$.confirmation.revert.boots'), 0)
	FROM old_bis o JOIN bisections b ON b.id = o.id
	WHERE json_type(o.j, '$.confirmation.revert.verdict') = 'text' AND o.metric IS NOT NULL AND
	      json_type(o.j, '$.confirmation.revert.commit') = 'text';

INSERT INTO verdicts (comparison_id, rank, metric, verdict, base_median, cand_median, delta,
		      delta_pct, p, n_base, n_cand)
	SELECT c.id, 0, c.metric, c.verdict,
	       json_extract(o.j, '$.confirmation.base_us'), json_extract(o.j, '$.confirmation.cand_us'),
	       o.delta_us, 100.0 * o.delta_us / nullif(json_extract(o.j, '$.confirmation.base_us'), 0),
	       json_extract(o.j, '$.confirmation.p'), c.boots_base, c.boots_cand
	FROM comparisons c JOIN old_bis o ON o.id = c.bisection_id WHERE c.role = 'timing';
INSERT INTO verdicts (comparison_id, rank, metric, verdict, delta, n_base, n_cand)
	SELECT c.id, 1, 'boot.init',
	       coalesce(json_extract(o.j, '$.confirmation.boot_init_verdict'), 'unknown'),
	       json_extract(o.j, '$.confirmation.boot_init_delta_us'), c.boots_base, c.boots_cand
	FROM comparisons c JOIN old_bis o ON o.id = c.bisection_id
	WHERE c.role = 'timing' AND json_type(o.j, '$.confirmation.boot_init_delta_us') IS NOT NULL;
INSERT INTO verdicts (comparison_id, rank, metric, verdict, base_median, cand_median, delta,
		      delta_pct, p, n_base, n_cand)
	SELECT c.id, 0, c.metric, c.verdict,
	       json_extract(o.j, '$.confirmation.revert.cand_us'),
	       json_extract(o.j, '$.confirmation.revert.base_us'),
	       -o.revert_delta_us,
	       -100.0 * o.revert_delta_us / nullif(json_extract(o.j, '$.confirmation.revert.cand_us'), 0),
	       json_extract(o.j, '$.confirmation.revert.p'), c.boots_base, c.boots_cand
	FROM comparisons c JOIN old_bis o ON o.id = c.bisection_id WHERE c.role = 'revert';

DROP VIEW old_bis;

-- A series' base and each patch's image.
CREATE TEMP VIEW old_series AS
	SELECT id, CASE WHEN json_valid(result) THEN result ELSE '{}' END j
	FROM series WHERE result IS NOT NULL;
UPDATE series SET
	base_from = (SELECT json_extract(j, '$.base.from') FROM old_series o WHERE o.id = series.id),
	base_image_sha256 = (SELECT json_extract(j, '$.base.image_sha256') FROM old_series o
			     WHERE o.id = series.id),
	base_boots = (SELECT json_extract(j, '$.base.boots') FROM old_series o
		      WHERE o.id = series.id),
	boots_per_commit = (SELECT json_extract(j, '$.boots_per_commit') FROM old_series o
			    WHERE o.id = series.id),
	whole_comparison_id = (SELECT c.id FROM old_series o, comparisons c
			       WHERE o.id = series.id AND c.id = json_extract(o.j, '$.whole.comparison'));
CREATE TEMP VIEW old_patch AS
	SELECT o.id, CASE p.type WHEN 'object' THEN p.value ELSE '{}' END o
	FROM old_series o, json_each(o.j, '$.patches') p WHERE typeof(p.key) = 'integer';
UPDATE series_patches SET
	image_sha256 = (SELECT json_extract(p.o, '$.image_sha256') FROM old_patch p
			WHERE p.id = series_patches.series_id AND
			      json_extract(p.o, '$.idx') = series_patches.idx),
	boots = (SELECT json_extract(p.o, '$.boots') FROM old_patch p
		 WHERE p.id = series_patches.series_id AND
		       json_extract(p.o, '$.idx') = series_patches.idx);
DROP VIEW old_patch;
DROP VIEW old_series;

ALTER TABLE comparisons DROP COLUMN result;
ALTER TABLE bisections DROP COLUMN result;
ALTER TABLE series DROP COLUMN result;
