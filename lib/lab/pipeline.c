/* The measure pipeline (pipeline.h). */
#include "lab/pipeline.h"
#include "conf/board.h"
#include "lab/record.h"
#include "lab/samples.h"
#include "lab/workers.h"
#include "report/boot-json.h"
#include "report/comparison.h"
#include "util/error.h"
#include "util/log.h"
#include "util/proc.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/xmalloc.h"

/* A worker's result is small; more than this is not one. */
#define RESULT_MAX (64u << 20)

void bg_measure_init(struct bg_measure *m)
{
	memset(m, 0, sizeof(*m));
	bg_build_result_init(&m->build[0]);
	bg_build_result_init(&m->build[1]);
	bg_boot_run_init(&m->run);
	bg_sample_set_init(&m->set[0]);
	bg_sample_set_init(&m->set[1]);
}

int bg_measure_check(const struct bg_measure_opts *o, struct bg_measure *m)
{
	struct bg_board board;
	const char *revs[2] = { o->commit, o->against };

	/* a --config or --fragment that is not there would fail the build, not the command */
	if (o->config && bg_build_config_check(o->config->base, o->config->fragments,
					       o->config->nfragments, NULL) < 0)
		return -1;
	if (bg_board_load(o->lab ? o->lab : bg_lab_dir(), o->board, &board) < 0)
		return -1;
	if (bg_board_check_mode(&board, o->deterministic) < 0 ||
	    (o->config && o->config->perf_runs && bg_board_check_perf(&board) < 0)) {
		bg_board_release(&board);
		return -1;
	}
	bg_board_release(&board);
	if (bg_tree_open(o->tree, &m->tree) < 0)
		return -1;
	for (int s = 0; s < 2; s++)
		if (revs[s] && bg_git_resolve(m->tree.real, revs[s], m->rev[s]) < 0)
			return -1;
	return 0;
}

static int build(const struct bg_measure_opts *o, struct bg_measure *m, int side)
{
	bg_progress_to(o, "building %.12s", m->rev[side]);
	return bg_worker_build(m->tree.real, m->rev[side], o->board, o->lab, o->config,
			       &m->build[side]);
}

/* Boots each side n times, interleaved, into run. */
static int boot(const struct bg_measure_opts *o, struct bg_measure *m, unsigned n,
		struct bg_boot_run *run)
{
	bool against = o->against != NULL;
	struct bg_worker_boot wb = {
		o->board, o->lab, o->deterministic, n, o->parallel,
		m->build[against ? BG_SIDE_AGAINST : BG_SIDE_COMMIT].image,
		against ? m->build[BG_SIDE_COMMIT].image : NULL, o->console,
		o->config ? o->config->perf_runs : 0,
	};

	bg_progress_to(o, "booting %u time%s each (%s mode, %s console)", n, n == 1 ? "" : "s",
		       o->deterministic ? "deterministic" : "timing", bg_console_name(o->console));
	/* the base is image A, the candidate B: booted A B A B */
	return bg_worker_boot(&wb, run);
}

static void warn_progress(const char *where, const char *msg, void *data)
{
	bg_progress_to((const struct bg_measure_opts *)data, "warning: %s: %s", where, msg);
}

/*
 * Reads the consoles of the boots not read yet: complete boots give values, the others
 * are only counted.
 */
static void collect(const struct bg_measure_opts *o, struct bg_measure *m)
{
	bool against = o->against != NULL;

	m->boots = xreallocarray(m->boots, m->run.n ? m->run.n : 1, sizeof(*m->boots));
	memset(m->boots + m->nboots, 0, (m->run.n - m->nboots) * sizeof(*m->boots));
	for (size_t i = m->nboots; i < m->run.n; i++) {
		const struct bg_boot_record *rec = &m->run.boots[i];
		struct bg_measure_boot *mb = &m->boots[m->nboots++];
		struct bg_sample_set *set;

		mb->side = against && rec->image == 0 ? BG_SIDE_AGAINST : BG_SIDE_COMMIT;
		mb->outcome = rec->outcome;
		mb->wall_seconds = rec->wall_seconds;
		mb->log = xstrdup(rec->log);
		mb->job_url = rec->job_url ? xstrdup(rec->job_url) : NULL;
		set = &m->set[mb->side];
		m->boots_failed |= rec->outcome != BG_OUTCOME_COMPLETE;
		bg_progress_to(o, "boot %zu (%.12s) %s", i, m->rev[mb->side],
			       bg_outcome_name(rec->outcome));
		/* a hang or a lab failure is never timing data: it is only counted */
		if (rec->outcome != BG_OUTCOME_COMPLETE) {
			bg_sample_set_exclude(set);
			continue;
		}
		mb->parsed = bg_worker_parsed(rec, warn_progress, (void *)o);
		if (!mb->parsed)
			bg_sample_set_exclude(set);
		else if (bg_sample_set_add_boot(set, mb->parsed) < 0)
			bg_progress_to(o, "warning: %s: %s", rec->log, bg_error_last());
	}
}

/* Compares the sides over every boot read so far; the earlier comparison stays on error. */
static int compare(const struct bg_measure_opts *o, struct bg_measure *m)
{
	struct bg_compare_config c;
	struct bg_comparison cmp;

	/* nothing to compare is an error, never a comparison of nothing */
	for (int side = 0; side < 2; side++)
		if (!m->set[side].boots)
			return bg_error("no boot of %.12s reached userspace (%u did not): nothing to "
					"compare", m->rev[side], m->set[side].excluded);
	/* the caller's thresholds, in this run's mode */
	bg_compare_config_init(&c);
	if (o->compare)
		c = *o->compare;
	c.deterministic = o->deterministic;
	if (bg_compare(&m->set[BG_SIDE_AGAINST], &m->set[BG_SIDE_COMMIT], &c, &cmp) < 0)
		return -1;
	if (m->compared)
		bg_comparison_release(&m->cmp);
	m->cmp = cmp;
	m->compared = true;
	return 0;
}

int bg_measure_run(const struct bg_measure_opts *o, struct bg_measure *m)
{
	/* one build at a time: the build worker also waits for any other build */
	if (build(o, m, BG_SIDE_COMMIT) < 0)
		return -1;
	if (o->against && build(o, m, BG_SIDE_AGAINST) < 0)
		return -1;
	if (boot(o, m, o->boots, &m->run) < 0)
		return -1;
	collect(o, m);
	return o->against ? compare(o, m) : 0;
}

int bg_measure_more(const struct bg_measure_opts *o, struct bg_measure *m, unsigned n)
{
	struct bg_boot_run more;
	int ret = -1;

	if (!o->against || !m->compared)
		return bg_error("more boots asked of a measure that compared nothing");
	bg_boot_run_init(&more);
	if (boot(o, m, n, &more) < 0)
		goto out;
	bg_boot_run_append(&m->run, &more);
	collect(o, m);
	ret = compare(o, m);
out:
	bg_boot_run_release(&more);
	return ret;
}

void bg_measure_release(struct bg_measure *m)
{
	bg_tree_release(&m->tree);
	bg_build_result_release(&m->build[0]);
	bg_build_result_release(&m->build[1]);
	bg_boot_run_release(&m->run);
	for (size_t i = 0; i < m->nboots; i++) {
		free(m->boots[i].log);
		free(m->boots[i].job_url);
		bg_boot_free(m->boots[i].parsed);
	}
	free(m->boots);
	bg_sample_set_release(&m->set[0]);
	bg_sample_set_release(&m->set[1]);
	if (m->compared)
		bg_comparison_release(&m->cmp);
	bg_measure_init(m);
}

bool bg_measure_all_infra(const struct bg_measure *m)
{
	for (size_t i = 0; i < m->nboots; i++)
		if (m->boots[i].outcome != BG_OUTCOME_INFRA)
			return false;
	return m->nboots > 0;
}

int bg_measure_record(struct bg_store *s, const struct bg_measure_opts *o,
		      const struct bg_measure *m, int64_t *boot_ids)
{
	const char *mode = o->deterministic ? "deterministic" : "timing";
	int64_t id;

	for (int side = 0; side < (o->against ? 2 : 1); side++) {
		if (!m->build[side].commit)
			continue;   /* never tried */
		bg_record_commit(s, m->tree.real, m->rev[side]);
		if (bg_record_build(s, &m->build[side], &id) < 0)
			return -1;
	}
	for (size_t i = 0; i < m->nboots; i++) {
		const struct bg_measure_boot *b = &m->boots[i];

		if (bg_record_boot(s, m->build[b->side].image_sha256, m->build[b->side].board, mode,
				   o->console, &m->run.boots[i], b->parsed, &id) < 0)
			return -1;
		if (boot_ids)
			boot_ids[i] = id;
	}
	return 0;
}

void bg_measure_stored_comparison(const struct bg_measure_opts *o, const struct bg_measure *m,
				  const int64_t *boot_ids, struct bg_stored_comparison *out)
{
	bg_stored_comparison_init(out);
	out->base = xstrdup(m->rev[BG_SIDE_AGAINST]);
	out->cand = xstrdup(m->rev[BG_SIDE_COMMIT]);
	out->board = xstrdup(m->build[BG_SIDE_COMMIT].board ? m->build[BG_SIDE_COMMIT].board :
			     o->board);
	out->mode = xstrdup(o->deterministic ? "deterministic" : "timing");
	out->console = xstrdup(bg_console_name(o->console));
	out->boots[BG_BASE] = m->set[BG_SIDE_AGAINST].boots;
	out->boots[BG_CAND] = m->set[BG_SIDE_COMMIT].boots;
	out->excluded[BG_BASE] = m->set[BG_SIDE_AGAINST].excluded;
	out->excluded[BG_CAND] = m->set[BG_SIDE_COMMIT].excluded;
	if (m->compared)
		out->cmp = m->cmp;
	for (size_t i = 0; i < m->nboots; i++)
		bg_stored_comparison_add_boot(out, m->boots[i].side == BG_SIDE_AGAINST ? BG_BASE :
					      BG_CAND, boot_ids ? boot_ids[i] : 0);
}

void bg_measure_write_json(struct bg_json *j, const struct bg_measure_opts *o,
			   const struct bg_measure *m)
{
	bg_json_object_begin(j);
	bg_json_key(j, "mode");
	bg_json_str(j, o->deterministic ? "deterministic" : "timing");
	bg_json_key(j, "console");
	bg_json_str(j, bg_console_name(o->console));
	bg_json_key(j, "board");
	bg_json_str(j, m->run.board);
	bg_json_key(j, "commit");
	bg_build_result_write(j, &m->build[BG_SIDE_COMMIT]);
	bg_json_key(j, "against");
	if (o->against)
		bg_build_result_write(j, &m->build[BG_SIDE_AGAINST]);
	else
		bg_json_null(j);
	bg_json_key(j, "boots");
	bg_json_array_begin(j);
	for (size_t i = 0; i < m->nboots; i++) {
		const struct bg_measure_boot *b = &m->boots[i];

		bg_json_object_begin(j);
		bg_json_key(j, "side");
		bg_json_str(j, b->side == BG_SIDE_AGAINST ? "against" : "commit");
		bg_json_key(j, "outcome");
		bg_json_str(j, bg_outcome_name(b->outcome));
		bg_json_key(j, "wall_seconds");
		bg_json_double(j, b->wall_seconds);
		bg_json_key(j, "job_url");
		if (b->job_url)
			bg_json_str(j, b->job_url);
		else
			bg_json_null(j);
		bg_json_key(j, "parsed");
		if (b->parsed)
			bg_boot_write_json(j, b->parsed, b->log);
		else
			bg_json_null(j);
		bg_json_object_end(j);
	}
	bg_json_array_end(j);
	bg_json_key(j, "comparison");
	if (m->compared)
		bg_comparison_write_json(j, &m->cmp, &m->set[BG_SIDE_AGAINST],
					 &m->set[BG_SIDE_COMMIT]);
	else
		bg_json_null(j);
	bg_json_object_end(j);
}
