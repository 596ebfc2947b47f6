/*
 * The artifact of a build (build.h): its image stored content-addressed under the
 * cache's artifacts/, or one of the same source reused, the names that lead to it, and
 * the result given on stdout, in --result and beside the image.
 */
#include <limits.h>
#include <sys/stat.h>

#include "build.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xmalloc.h"

/* artifacts/by-commit/COMMIT-BOARD-CONFIG, "-perf" after it for the builds with perf */
static char *commit_link(const struct build *b, const char *commit)
{
	return xasprintf("%s/artifacts/by-commit/%s-%s-%.12s%s", b->cache, commit, b->board.name,
			 b->config_key, b->perf ? "-perf" : "");
}

/* A commit whose image equals its parent's cannot change boot time. */
static void same_as_parent(struct build *b)
{
	struct bg_build_result *r = &b->res;
	char *link;

	if (!b->parent[0])
		return;
	link = commit_link(b, b->parent);
	{
		char target[PATH_MAX];
		ssize_t n = readlink(link, target, sizeof(target) - 1);

		if (n > 0) {
			target[n] = '\0';
			r->identical_to_parent = !strcmp(target, r->artifact);
		}
	}
	free(link);
}

/*
 * The identity of an image built with perf: the hash of both hashes. Boots belong to
 * it, so a commit that changes perf alone shares no boots with its parent.
 */
static void perf_identity(const char *kernel_sha, const char *perf_sha, char out[BG_SHA256_HEX])
{
	char *text = xasprintf("bootgate-perf-1 %s %s", kernel_sha, perf_sha);

	bg_sha256_mem(text, strlen(text), out);
	free(text);
}

/* An artifact kept with perf: its perf, and the hashes of both parts. */
static int reuse_perf(struct build *b, const char *target)
{
	struct bg_build_result *r = &b->res;
	char ksha[BG_SHA256_HEX], psha[BG_SHA256_HEX], both[BG_SHA256_HEX];
	char *perf = bg_path_join(target, "perf");

	if (access(perf, R_OK) != 0 || bg_sha256_file(r->image, ksha) < 0 ||
	    bg_sha256_file(perf, psha) < 0) {
		free(perf);
		return -1;
	}
	perf_identity(ksha, psha, both);
	if (strcmp(both, r->image_sha256) != 0) {
		free(perf);
		return -1;   /* not what its name says: build again */
	}
	r->perf = perf;
	r->perf_sha256 = xstrdup(psha);
	r->kernel_sha256 = xstrdup(ksha);
	return 0;
}

/*
 * artifacts/by-source/KEY: the key hashes the source tree, the configuration (which names
 * the arch, the compiler prefix and the make target), the image's path and the compiler;
 * not the board's name, so that boards that build alike (qemu-x86_64 and a LAVA board
 * booting the same kernel) share one image. An untrusted build's images have keys of their
 * own: a build can tell where it runs and give another image than its source would, and
 * that image must not become a trusted commit's.
 */
static char *source_link(const struct build *b, bool untrusted)
{
	char key[BG_SHA256_HEX];
	/* with perf another artifact: the image and perf (no suffix: the old keys stay) */
	char *text = xasprintf("bootgate-source-2 %s %s %s %s%s%s", b->source, b->config_key,
			       b->board.image, b->compiler ? b->compiler : "",
			       b->perf ? " perf-1" : "", untrusted ? " untrusted" : "");

	bg_sha256_mem(text, strlen(text), key);
	free(text);
	return xasprintf("%s/artifacts/by-source/%s", b->cache, key);
}

/*
 * An image built before from the same source tree with the same board, configuration
 * and compiler: taken as this commit's, with nothing compiled. 1 when reused. A trusted
 * build takes trusted images only; an untrusted one, those and its own kind's.
 */
int reuse(struct build *b)
{
	struct bg_build_result *r = &b->res;
	char target[PATH_MAX], *link = source_link(b, false), *image = NULL, *byc = NULL;
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	const char *sha;
	int ret = 0;

	if (n <= 0 && b->untrusted) {
		free(link);
		link = source_link(b, true);
		n = readlink(link, target, sizeof(target) - 1);
	}
	if (n <= 0)
		goto out;
	target[n] = '\0';
	image = bg_path_join(target, "image");
	sha = strrchr(target, '/');
	if (access(image, R_OK) != 0 || !sha || strlen(sha + 1) != BG_SHA256_HEX - 1)
		goto out;
	r->artifact = xstrdup(target);
	r->image = image;
	image = NULL;
	r->image_sha256 = xstrdup(sha + 1);
	if (b->perf && reuse_perf(b, target) < 0) {
		free(r->artifact);
		free(r->image);
		free(r->image_sha256);
		r->artifact = r->image = r->image_sha256 = NULL;
		goto out;
	}
	r->reused = true;
	/* the log is the build's that made the image; its metadata stays that build's */
	free(b->log);
	b->log = bg_path_join(target, "build.log");
	byc = commit_link(b, b->commit);
	unlink(byc);
	if (symlink(target, byc) < 0)
		log_warn("cannot link '%s'", byc);
	same_as_parent(b);
	ret = 1;
out:
	free(byc);
	free(image);
	free(link);
	return ret;
}

/*
 * Copies NAME of the build directory DIR to DEST and hashes it. NAME is opened without
 * following a link out of DIR: a link, a directory or nothing there is the build's doing
 * (bad_output), not the machine's.
 */
static int stage_output(struct build *b, const char *dir, const char *name, const char *what,
			const char *dest, char sha[BG_SHA256_HEX])
{
	int fd = bg_open_beneath(dir, name), ret;

	if (fd < 0) {
		b->bad_output = true;
		return -1;
	}
	ret = bg_copy_fd(fd, what, dest);
	close(fd);
	if (ret < 0 || bg_sha256_file(dest, sha) < 0)
		return -1;
	return 0;
}

/*
 * Stores the image content-addressed, with its config, its log and a by-commit name. The
 * image and the .config are the build's own output: opened without following a link,
 * so that a build cannot make this worker copy a file it could not read itself.
 */
int store(struct build *b)
{
	struct bg_build_result *r = &b->res;
	char sha[BG_SHA256_HEX], *dir = xasprintf("%s/artifacts/by-commit", b->cache);
	char *path = NULL, *link = NULL, *staged = NULL, *staged_perf = NULL;
	int ret = -1, fd;

	staged = bg_path_join(b->slot, "image");
	if (stage_output(b, b->out, b->board.image, b->board.image, staged, sha) < 0)
		goto out;
	if (b->perf) {
		char psha[BG_SHA256_HEX];

		staged_perf = bg_path_join(b->work, "perf.staged");
		if (stage_output(b, b->perf_out, "perf.stripped", "perf", staged_perf, psha) < 0)
			goto out;
		r->kernel_sha256 = xstrdup(sha);
		r->perf_sha256 = xstrdup(psha);
		perf_identity(r->kernel_sha256, psha, sha);
	}
	r->image_sha256 = xstrdup(sha);
	r->artifact = xasprintf("%s/artifacts/%s", b->cache, sha);
	{
		char *sources = xasprintf("%s/artifacts/by-source", b->cache);
		int made = bg_mkdirs(sources);

		free(sources);
		if (bg_mkdirs(r->artifact) < 0 || bg_mkdirs(dir) < 0 || made < 0)
			goto out;
	}
	path = bg_path_join(r->artifact, "image");
	/*
	 * The same bytes built before: an untrusted build leaves that artifact's config, log
	 * and metadata as they are (its .config is the build's to rewrite, and a trusted
	 * commit that takes the image again reports that log).
	 */
	b->kept_theirs = b->untrusted && access(path, R_OK) == 0;
	if (access(path, R_OK) != 0 && rename(staged, path) < 0) {
		bg_error_errno("cannot store '%s'", path);
		goto out;
	}
	r->image = path;
	if (staged_perf) {
		path = bg_path_join(r->artifact, "perf");
		if (access(path, R_OK) != 0 && rename(staged_perf, path) < 0) {
			bg_error_errno("cannot store '%s'", path);
			goto out;
		}
		if (chmod(path, 0755) < 0)
			log_warn("cannot chmod '%s'", path);
		r->perf = path;
	}
	path = bg_path_join(r->artifact, "config");
	if ((fd = bg_open_beneath(b->out, ".config")) < 0) {
		b->bad_output = true;
		goto out;
	}
	ret = b->kept_theirs ? 0 : bg_copy_fd(fd, ".config", path);
	close(fd);
	if (ret < 0)
		goto out;
	ret = -1;
	free(path);
	path = bg_path_join(r->artifact, "build.log");
	if (!b->kept_theirs && bg_copy_file(b->log, path) < 0)
		goto out;
	free(link);
	link = commit_link(b, b->commit);
	unlink(link);
	if (symlink(r->artifact, link) < 0) {
		bg_error_errno("cannot link '%s'", link);
		goto out;
	}
	/* the same source, board, configuration and compiler give this image again */
	free(link);
	link = source_link(b, b->untrusted);
	unlink(link);
	if (symlink(r->artifact, link) < 0) {
		bg_error_errno("cannot link '%s'", link);
		goto out;
	}
	same_as_parent(b);
	ret = 0;
out:
	if (staged)
		unlink(staged);
	if (staged_perf)
		unlink(staged_perf);
	free(staged);
	free(staged_perf);
	free(path);
	free(link);
	free(dir);
	return ret;
}

/* Keeps the log of a failed build where the next build will not overwrite it. */
void keep_failed_log(struct build *b)
{
	char *dir = xasprintf("%s/artifacts/failed", b->cache);
	char *failed = xasprintf("%s/%s-%s.log", dir, b->commit, b->board.name);

	if (bg_mkdirs(dir) == 0 && bg_copy_file(b->log, failed) == 0) {
		free(b->log);
		b->log = failed;
	} else {
		free(failed);
	}
	free(dir);
}

/* A result field from what the build knows, when it knows it and it is not set yet. */
static void fill(char **field, const char *value)
{
	if (value && *value && !*field)
		*field = xstrdup(value);
}

/*
 * Prints the result, keeps it in --result, and returns the exit code of its status; or
 * 111 when the result cannot be given: whatever was built, nobody would know.
 */
int finish(struct build *b, enum bg_build_status status, const char *why)
{
	struct bg_build_result *r = &b->res;
	enum bg_exit code = bg_build_status_exit(status);
	struct bg_json j;

	r->status = status;
	fill(&r->error, why);
	fill(&r->tree, b->tree.real);
	fill(&r->tree_id, b->tree.id);
	fill(&r->commit, b->commit);
	fill(&r->parent, b->parent);
	fill(&r->board, b->board.name);
	fill(&r->arch, b->board.arch);
	fill(&r->config_hash, b->config_key);
	fill(&r->compiler, b->compiler);
	fill(&r->log, b->log);
	if (why)
		log_warnx("%s", why);
	bg_json_init(&j, -1, 1);
	bg_build_result_write(&j, r);
	bg_strbuf_addch(&j.out, '\n');
	if (fwrite(j.out.buf, 1, j.out.len, stdout) != j.out.len || fflush(stdout) == EOF) {
		log_warn("cannot write the result");
		code = BG_EXIT_INFRA;
	}
	if (b->result_path && bg_write_file(b->result_path, j.out.buf, j.out.len) < 0) {
		log_warnx("%s", bg_error_last());
		code = BG_EXIT_INFRA;
	}
	/* an image kept for another commit keeps the metadata of the build that made it */
	if (r->artifact && !r->reused && !b->kept_theirs) {
		char *meta = bg_path_join(r->artifact, "metadata.json");

		if (bg_write_file(meta, j.out.buf, j.out.len) < 0)
			log_warnx("%s", bg_error_last());
		free(meta);
	}
	bg_strbuf_release(&j.out);
	return code;
}
