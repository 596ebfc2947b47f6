-- Every board of a tree is gated on its own: one job per (tree, board), so that a board
-- that is slow, down or regressed holds up no other, and a regression found on one board
-- is bisected on that board. jobs.board is NULL in the rows made before, and in a gate
-- asked for by hand without one: the daemon queues it again on each board of the tree.
ALTER TABLE jobs ADD COLUMN board TEXT;

-- The last good commit of each board of a tree: the one its next gate is measured
-- against. A board with no row yet is measured against trees.last_good (what the one
-- board gated before this migration left), so a board added to a tree starts there.
CREATE TABLE tree_boards (
	tree_id INTEGER NOT NULL REFERENCES trees(id),
	board TEXT NOT NULL,
	last_good TEXT,
	PRIMARY KEY (tree_id, board)
) WITHOUT ROWID;
