-- What KCIDB's builds carry that the store had not kept: the compiler's version line, as
-- bootgate-build found it (its result's "compiler"); NULL for builds made before.
ALTER TABLE builds ADD COLUMN compiler TEXT;
