-- Boots on LAVA: where each boot ran, so that a maintainer can open the lab's own page.

-- The LAVA job's page (SERVER/scheduler/job/ID); NULL for a boot under bootgate-boot's
-- own QEMU. The board (boots.board) names a device type and its tags: samples are only
-- ever compared within one board.
ALTER TABLE boots ADD COLUMN job_url TEXT;
