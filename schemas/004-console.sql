-- The console mode of a boot (lab/board.h): verbose prints initcall_debug live at
-- loglevel=8; quiet boots as users do and reads the initcalls from the ring buffer dumped
-- after init. A quiet boot is another boot: its samples are compared only with boots of
-- the same board, mode and console mode, and a bisection in one never takes the other's
-- boots. (boots.console is the path of the boot's console log.)
ALTER TABLE boots ADD COLUMN console_mode TEXT NOT NULL DEFAULT 'verbose';
ALTER TABLE bisections ADD COLUMN console_mode TEXT NOT NULL DEFAULT 'verbose';
DROP INDEX boots_by_image;
CREATE INDEX boots_by_image ON boots(image_sha256, board, mode, console_mode);
