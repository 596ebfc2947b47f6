/* The service configuration (service-conf.h), read and checked through the nested reader. */
#include <arpa/inet.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "conf/service-conf.h"
#include "conf/board.h"
#include "net/git.h"
#include "net/smtp.h"
#include "report/mail.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/num.h"
#include "util/path.h"
#include "util/secret.h"
#include "util/text.h"
#include "util/xmalloc.h"

#define TREE_NAME_MAX 64
/* connect() and bind() take a Unix socket's path in a fixed array, NUL included */
#define SOCKET_PATH_MAX (sizeof((struct sockaddr_un){ 0 }.sun_path) - 1)

/* A value that is given must say something: "key:" and "key: ''" are mistakes. */
static int check_given(const struct bg_conf *c, const char *key, const char *s)
{
	if (s && !*s)
		return bg_conf_error_at(c, key, 0, "'%s' is empty", key);
	return 0;
}

static int check_required(const struct bg_conf *c, const char *key, const char *s)
{
	if (!s)
		return bg_conf_error_at(c, key, 0, "'%s' is missing", key);
	return check_given(c, key, s);
}

/* A list: when given, not empty, with no empty item and no item twice. */
static int get_list(struct bg_conf *c, const char *key, char ***out, size_t *n)
{
	if (bg_conf_list(c, key, out, n) < 0)
		return -1;
	if (bg_conf_find(c, key) && !*n)
		return bg_conf_error_at(c, key, 0, "'%s' is an empty list: leave the key out, or "
					"name at least one", key);
	for (size_t i = 0; i < *n; i++) {
		if (!*(*out)[i])
			return bg_conf_error_at(c, key, i, "'%s' has an empty item", key);
		for (size_t k = 0; k < i; k++)
			if (!strcmp((*out)[k], (*out)[i]))
				return bg_conf_error_at(c, key, i, "'%s' lists '%s' twice", key,
							(*out)[i]);
	}
	return 0;
}

/* Where the file lives, for the paths in it: absolute when it can be found. */
static char *file_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
			  : xstrdup(".");
	char real[PATH_MAX];

	if (realpath(dir, real)) {
		free(dir);
		dir = xstrdup(real);
	}
	return dir;
}

static char *resolve(const char *dir, const char *path)
{
	return path[0] == '/' ? xstrdup(path) : bg_path_join(dir, path);
}

/* A file the reader checks now: a typo in its name must not wait for a build to show. */
static int check_file(const struct bg_conf *c, const char *key, size_t item, const char *path,
		      const char *what)
{
	struct stat st;

	if (stat(path, &st) < 0 || access(path, R_OK) != 0)
		return bg_conf_error_at(c, key, item, "%scannot read '%s': %s", what, path,
					strerror(errno));
	if (!S_ISREG(st.st_mode))
		return bg_conf_error_at(c, key, item, "%s'%s' is not a file", what, path);
	return 0;
}

/* ---- the webhook's and the artifacts' addresses ---- */

static bool is_host_name(const char *s)
{
	size_t label = 0, n = 0;

	/* RFC 1123: dot-separated labels of letters, digits and inner hyphens */
	for (; s[n]; n++) {
		char ch = s[n];

		if (ch == '.') {
			if (!label || s[n - 1] == '-')
				return false;
			label = 0;
		} else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			   (ch >= '0' && ch <= '9') || (ch == '-' && label)) {
			if (++label > 63)
				return false;
		} else {
			return false;
		}
	}
	return n && n <= 253 && label && s[n - 1] != '-';
}

/* "HOST:PORT", "[IPV6]:PORT": the host without brackets, owned by the caller. */
static int parse_listen(const struct bg_conf *w, const char *s, char **host, unsigned *port)
{
	unsigned char addr[sizeof(struct in6_addr)];
	const char *p, *close;
	unsigned long v;
	char *h;

	if (s[0] == '[') {
		close = strchr(s, ']');
		if (!close || close[1] != ':')
			return bg_conf_error_at(w, "listen", 0, "'listen' is HOST:PORT, with an "
						"IPv6 address in brackets ([::1]:8787), not '%s'", s);
		h = xstrndup(s + 1, (size_t)(close - s - 1));
		p = close + 2;
		if (inet_pton(AF_INET6, h, addr) != 1) {
			bg_conf_error_at(w, "listen", 0, "'listen': '%s' is not an IPv6 address", h);
			free(h);
			return -1;
		}
	} else {
		close = strrchr(s, ':');
		if (!close)
			return bg_conf_error_at(w, "listen", 0, "'listen' is HOST:PORT, not '%s'", s);
		h = xstrndup(s, (size_t)(close - s));
		p = close + 1;
		if (strchr(h, ':')) {
			free(h);
			return bg_conf_error_at(w, "listen", 0, "'listen': an IPv6 address goes in "
						"brackets ([::1]:8787), not '%s'", s);
		}
		if (!*h) {
			free(h);
			return bg_conf_error_at(w, "listen", 0, "'listen' is HOST:PORT, with no "
						"host in '%s'", s);
		}
		/* digits and dots alone are an IPv4 address, never a name */
		if (strspn(h, "0123456789.") == strlen(h) ? inet_pton(AF_INET, h, addr) != 1
							   : !is_host_name(h)) {
			bg_conf_error_at(w, "listen", 0, "'listen': '%s' is not an IPv4 address "
					 "or a host name", h);
			free(h);
			return -1;
		}
	}
	if (bg_num_parse_ulong(p, 1, 65535, &v) < 0) {
		free(h);
		return bg_conf_error_at(w, "listen", 0, "'listen': the port must be a whole "
					"number from 1 to 65535, not '%s'", p);
	}
	*host = h;
	*port = (unsigned)v;
	return 0;
}

/* ---- mail ---- */

/* Each item of key an address a mail can carry: "Name <addr>" or "addr", no control. */
static int check_addrs(const struct bg_conf *m, const char *key, char **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct bg_mail_addr a;

		if (bg_text_has_control(v[i]))
			return bg_conf_error_at(m, key, i, "'%s' may not hold a line break "
						"or another control character", key);
		if (bg_mail_addr_parse(v[i], &a) < 0)
			return bg_conf_error_at(m, key, i, "%s", bg_error_last());
		bg_mail_addr_release(&a);
	}
	return 0;
}

static int read_tree_mail(struct bg_conf *m, struct bg_service_tree *t)
{
	struct bg_conf *mail;
	const char *send, *regzbot;

	if (bg_conf_map(m, "mail", &mail) < 0)
		return -1;
	if (!mail)
		return 0;
	if (get_list(mail, "to", &t->mail.to, &t->mail.nto) < 0 ||
	    get_list(mail, "cc", &t->mail.cc, &t->mail.ncc) < 0 ||
	    get_list(mail, "maintainers", &t->mail.maintainers, &t->mail.nmaintainers) < 0 ||
	    bg_conf_str(mail, "send", "maintainers", &send) < 0 ||
	    bg_conf_str(mail, "regzbot", "no", &regzbot) < 0 ||
	    bg_conf_check_unused(mail) < 0 || check_given(mail, "send", send) < 0 ||
	    check_given(mail, "regzbot", regzbot) < 0 ||
	    check_addrs(mail, "to", t->mail.to, t->mail.nto) < 0 ||
	    check_addrs(mail, "cc", t->mail.cc, t->mail.ncc) < 0 ||
	    check_addrs(mail, "maintainers", t->mail.maintainers, t->mail.nmaintainers) < 0)
		return -1;
	if (!strcmp(send, "list"))
		t->mail.send_list = true;
	else if (strcmp(send, "maintainers") != 0)
		return bg_conf_error_at(mail, "send", 0, "'send' is list or maintainers, not '%s'",
					send);
	if (t->mail.send_list && !t->mail.nto)
		return bg_conf_error_at(mail, "to", 0, "'send: list' needs the list in 'to'");
	/* off by default: only a tree that feeds mainline is the tracker's business */
	if (!strcmp(regzbot, "yes"))
		t->mail.regzbot = true;
	else if (strcmp(regzbot, "no") != 0)
		return bg_conf_error_at(mail, "regzbot", 0, "'regzbot' is yes or no, not '%s'",
					regzbot);
	/* a list on Cc of a mail that goes to no list would make it public by the back door */
	if (t->mail.regzbot && !t->mail.send_list)
		return bg_conf_error_at(mail, "regzbot", 0, "'regzbot: yes' puts "
					BG_MAIL_REGRESSIONS " on Cc: it needs 'send: list'");
	return 0;
}

static int read_report(struct bg_service_conf *sc, const char *dir)
{
	struct bg_report_conf *r = &sc->report;
	struct bg_conf *rep;
	const char *pwfile, *site, *conf;

	r->min_confidence = BG_REPORT_MIN_CONFIDENCE;
	if (bg_conf_map(&sc->conf, "report", &rep) < 0)
		return -1;
	if (!rep)
		return 0;
	r->enabled = true;
	if (bg_conf_str(rep, "from", NULL, &r->from) < 0 ||
	    bg_conf_str(rep, "smtp", NULL, &r->smtp) < 0 ||
	    bg_conf_str(rep, "smtp-user", NULL, &r->smtp_user) < 0 ||
	    bg_conf_str(rep, "smtp-password-file", NULL, &pwfile) < 0 ||
	    bg_conf_str(rep, "site-url", NULL, &site) < 0 ||
	    bg_conf_str(rep, "min-confidence", NULL, &conf) < 0 ||
	    bg_conf_check_unused(rep) < 0 ||
	    check_given(rep, "from", r->from) < 0 || check_given(rep, "smtp", r->smtp) < 0 ||
	    check_given(rep, "smtp-user", r->smtp_user) < 0 ||
	    check_given(rep, "smtp-password-file", pwfile) < 0 ||
	    check_given(rep, "site-url", site) < 0 ||
	    check_given(rep, "min-confidence", conf) < 0)
		return -1;
	if (r->from) {
		char *v[] = { (char *)r->from };

		if (check_addrs(rep, "from", v, 1) < 0)
			return -1;
	}
	if (r->smtp && bg_smtp_url_check(r->smtp) < 0)
		return bg_conf_error_at(rep, "smtp", 0, "'smtp': %s", bg_error_last());
	if (r->smtp_user) {
		if (bg_text_has_control(r->smtp_user))
			return bg_conf_error_at(rep, "smtp-user", 0, "'smtp-user' may not hold a "
						"control character");
		if (!pwfile)
			return bg_conf_error_at(rep, "smtp-user", 0, "'smtp-user' needs "
						"'smtp-password-file'");
	} else if (pwfile) {
		return bg_conf_error_at(rep, "smtp-password-file", 0, "'smtp-password-file' "
					"needs 'smtp-user'");
	}
	if (pwfile)
		r->smtp_password_file = resolve(dir, pwfile);
	if (site) {
		for (const char *p = site; *p; p++)
			if ((unsigned char)*p <= ' ' || *p == 0x7f)
				return bg_conf_error_at(rep, "site-url", 0, "'site-url' may not hold "
							"a space or a control character");
		r->site_url = xstrndup(site, strlen(site) - (site[strlen(site) - 1] == '/'));
	}
	if (conf && bg_num_parse_double(conf, 0, 1, &r->min_confidence) < 0)
		return bg_conf_error_at(rep, "min-confidence", 0, "'min-confidence' is a number "
					"from 0 to 1, not '%s'", conf);
	return 0;
}

/* ---- trees ---- */

static bool tree_name_ok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789._-");

	return n && !s[n] && n <= TREE_NAME_MAX && s[0] != '.' && s[0] != '_' && s[0] != '-';
}

/* Whether some metric name could match both patterns (see bg_threshold_matches). */
static bool patterns_overlap(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	bool pa = na && a[na - 1] == '*', pb = nb && b[nb - 1] == '*';

	if (pa)
		na--;
	if (pb)
		nb--;
	if (pa && pb)
		return !strncmp(a, b, na < nb ? na : nb);
	if (pa)
		return !strncmp(a, b, na);
	if (pb)
		return !strncmp(a, b, nb);
	return !strcmp(a, b);
}

static int check_name(const struct bg_service_conf *sc, struct bg_conf *trees, size_t i)
{
	const struct bg_service_tree *t = &sc->trees[i];

	if (!tree_name_ok(t->name))
		return bg_conf_error_at(&trees[i], "name", 0, "tree name '%s' must be 1 to %d of "
					"[a-z0-9._-], starting with a letter or a digit", t->name,
					TREE_NAME_MAX);
	/* names become paths: "a..b" would read as a step up to someone, if not to us */
	if (strstr(t->name, ".."))
		return bg_conf_error_at(&trees[i], "name", 0, "tree name '%s' may not hold '..'",
					t->name);
	for (size_t k = 0; k < i; k++)
		if (!strcmp(sc->trees[k].name, t->name))
			return bg_conf_error_at(&trees[i], "name", 0, "tree '%s' is named twice "
						"(first at line %zu)", t->name,
						bg_conf_find(&trees[k], "name")->line);
	return 0;
}

static int check_url(const struct bg_conf *m, const char *url)
{
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return bg_conf_error_at(m, "url", 0, "'url' may not hold a space, a line break "
						"or another control character");
	/* git would take it for an option */
	if (url[0] == '-')
		return bg_conf_error_at(m, "url", 0, "'url' may not start with '-'");
	return 0;
}

/*
 * Item i of key names the board PREFIX+NAME: a plain name (it is a file of the lab, and
 * "../x" must not reach outside it) whose board file the lab has.
 */
static int check_board(const struct bg_conf *m, const char *key, size_t i, const char *what,
		       const char *prefix, const char *lab)
{
	const char *name = bg_conf_find(m, key)->values[i];
	char *path;
	int ok;

	if (!bg_path_name_ok(name))
		return bg_conf_error_at(m, key, i, "%s '%s' is not a plain name ([A-Za-z0-9._+-], "
					"no '/')", what, name);
	path = xasprintf("%s/boards/%s%s.yaml", lab, prefix, name);
	ok = access(path, R_OK) == 0;
	free(path);
	if (!ok)
		return bg_conf_error_at(m, key, i, "%s '%s': no %s%s.yaml in %s/boards", what, name,
					prefix, name, lab);
	return 0;
}

static int check_boards(const struct bg_conf *m, const struct bg_service_tree *t,
			const char *lab)
{
	for (size_t i = 0; i < t->narches; i++)
		if (check_board(m, "arches", i, "arch", "qemu-", lab) < 0)
			return -1;
	for (size_t i = 0; i < t->nboards; i++) {
		if (check_board(m, "boards", i, "board", "", lab) < 0)
			return -1;
		/* an arch stands for its board: the same board twice would boot twice */
		for (size_t k = 0; k < t->narches; k++)
			if (!strncmp(t->boards[i], "qemu-", 5) &&
			    !strcmp(t->boards[i] + 5, t->arches[k]))
				return bg_conf_error_at(m, "boards", i, "board '%s' is the board of "
							"arch '%s', listed already", t->boards[i],
							t->arches[k]);
	}
	return 0;
}

/*
 * Each board as the workers will load it, for this tree: a board file with a mistake, a
 * mode the board does not boot, or perf on a board that cannot run it would otherwise
 * pass the check and fail every job of the tree.
 */
static int check_board_use(const struct bg_conf *m, const char *key, size_t i,
			   const char *prefix, struct bg_service_tree *t, const char *lab)
{
	const char *name = bg_conf_find(m, key)->values[i];
	char *full = xasprintf("%s%s", prefix, name);
	struct bg_board b;
	int ret = -1;

	if (bg_board_load(lab, full, &b) < 0) {
		bg_conf_error_at(m, key, i, "board '%s': %s", full, bg_error_last());
		free(full);
		return -1;
	}
	/* jobs, builds and boots name a board by its name: key, and the daemon finds it by file */
	if (strcmp(b.name, full))
		bg_conf_error_at(m, key, i, "board '%s': its file names it '%s': a board's name is "
				 "its file's", full, b.name);
	else if (bg_board_check_mode(&b, t->deterministic) < 0)
		bg_conf_error_at(m, key, i, "%s", bg_error_last());
	else if (t->perf_runs && bg_board_check_perf(&b) < 0)
		bg_conf_error_at(m, key, i, "'perf-runs': %s", bg_error_last());
	else
		ret = 0;
	if (!ret) {
		t->gated = xreallocarray(t->gated, t->ngated + 1, sizeof(*t->gated));
		t->gated_lava = xreallocarray(t->gated_lava, t->ngated + 1, sizeof(*t->gated_lava));
		t->gated_lava[t->ngated] = b.type == BG_BOARD_LAVA;
		t->gated[t->ngated++] = xstrdup(full);
	}
	bg_board_release(&b);
	free(full);
	return ret;
}

static int check_boards_use(const struct bg_conf *m, struct bg_service_tree *t,
			    const char *lab)
{
	/* its boards first: the first of them is the board a tree was gated on before */
	for (size_t i = 0; i < t->nboards; i++)
		if (check_board_use(m, "boards", i, "", t, lab) < 0)
			return -1;
	for (size_t i = 0; i < t->narches; i++)
		if (check_board_use(m, "arches", i, "qemu-", t, lab) < 0)
			return -1;
	return 0;
}

static int check_metrics(const struct bg_conf *m, const struct bg_service_tree *t)
{
	for (size_t i = 0; i < t->nmetrics; i++)
		if (bg_threshold_pattern_check(t->metrics[i]) < 0)
			return bg_conf_error_at(m, "metrics", i, "metric pattern '%s': %s",
						t->metrics[i], bg_error_last());
	return 0;
}

/* PATTERN: "PCT%[:US]", each for metrics the tree looks at. */
static int read_thresholds(struct bg_conf *thr, struct bg_service_tree *t)
{
	for (size_t i = 0; thr && i < thr->n; i++) {
		const struct bg_conf_entry *e = &thr->e[i];
		bool seen = !t->nmetrics;

		if (bg_threshold_pattern_check(e->key) < 0)
			return bg_error("%s:%zu:%zu: threshold '%s': %s", thr->file, e->line,
					e->column, e->key, bg_error_last());
		for (size_t k = 0; k < t->nmetrics && !seen; k++)
			seen = patterns_overlap(e->key, t->metrics[k]);
		if (!seen)
			return bg_error("%s:%zu:%zu: threshold '%s' is for no metric the tree looks "
					"at (see 'metrics')", thr->file, e->line, e->column, e->key);
		if (bg_compare_config_add_threshold_pair(&t->compare, e->key, e->values[0]) < 0)
			return bg_conf_error_at(thr, e->key, 0, "%s", bg_error_last());
	}
	return 0;
}

static bool has_threshold(const struct bg_service_tree *t, const char *pattern)
{
	for (size_t i = 0; i < t->compare.nthresholds; i++)
		if (!strcmp(t->compare.thresholds[i].pattern, pattern))
			return true;
	return false;
}

static int read_config(const struct bg_conf *m, struct bg_service_tree *t, const char *dir,
		       const char *config)
{
	size_t n = strlen(config);

	if (check_given(m, "config", config) < 0)
		return -1;
	if (!strcmp(config, "tinyconfig")) {
		t->config = BG_KCONFIG_TINY;
		t->config_name = xstrdup(config);
	} else if (bg_path_name_ok(config) && n >= 9 && !strcmp(config + n - 9, "defconfig")) {
		t->config = BG_KCONFIG_TARGET;
		t->config_name = xstrdup(config);
	} else {
		t->config = BG_KCONFIG_FILE;
		t->config_name = resolve(dir, config);
		if (check_file(m, "config", 0, t->config_name, "'config' is tinyconfig, a "
			       "defconfig target or a .config file: ") < 0)
			return -1;
	}
	return 0;
}

static int read_tree(struct bg_service_conf *sc, struct bg_conf *trees, size_t i,
		     const char *dir, const char *lab)
{
	struct bg_conf *m = &trees[i], *thr;
	struct bg_service_tree *t = &sc->trees[i];
	const char *reference, *mode, *config, *console;
	char **fragments;
	size_t nfragments;

	/* every key is read before any is judged: a typo is named as one, not as a lack */
	if (bg_conf_str(m, "name", NULL, &t->name) < 0 ||
	    bg_conf_str(m, "url", NULL, &t->url) < 0 ||
	    bg_conf_str(m, "branch", NULL, &t->branch) < 0 ||
	    bg_conf_str(m, "reference", NULL, &reference) < 0 ||
	    get_list(m, "arches", &t->arches, &t->narches) < 0 ||
	    get_list(m, "boards", &t->boards, &t->nboards) < 0 ||
	    bg_conf_str(m, "mode", "timing", &mode) < 0 ||
	    bg_conf_str(m, "console", "verbose", &console) < 0 ||
	    get_list(m, "metrics", &t->metrics, &t->nmetrics) < 0 ||
	    bg_conf_map(m, "thresholds", &thr) < 0 ||
	    bg_conf_long(m, "poll", sc->poll, 10, 86400, &t->poll) < 0 ||
	    bg_conf_str(m, "config", "tinyconfig", &config) < 0 ||
	    get_list(m, "fragments", &fragments, &nfragments) < 0 ||
	    bg_conf_long(m, "perf-runs", 0, 0, 100, &t->perf_runs) < 0 ||
	    read_tree_mail(m, t) < 0)
		return -1;
	for (size_t k = 0; thr && k < thr->n; k++) {
		const char *value;

		if (bg_conf_str(thr, thr->e[k].key, NULL, &value) < 0)
			return -1;
	}
	if (bg_conf_check_unused(m) < 0 ||
	    check_required(m, "name", t->name) < 0 || check_name(sc, trees, i) < 0 ||
	    check_required(m, "url", t->url) < 0 || check_url(m, t->url) < 0 ||
	    check_required(m, "branch", t->branch) < 0 ||
	    check_given(m, "reference", reference) < 0 ||
	    check_given(m, "mode", mode) < 0 || check_given(m, "console", console) < 0)
		return -1;
	if (!bg_git_branch_name_ok(t->branch))
		return bg_conf_error_at(m, "branch", 0, "'%s' is not a branch name git takes",
					t->branch);
	if (reference)
		t->reference = resolve(dir, reference);
	if (!t->narches && !t->nboards)
		return bg_conf_error_at(m, "arches", 0, "tree '%s' boots nothing: give it "
					"'arches', 'boards' or both", t->name);
	if (check_boards(m, t, lab) < 0)
		return -1;
	if (!strcmp(mode, "deterministic"))
		t->deterministic = true;
	else if (strcmp(mode, "timing") != 0)
		return bg_conf_error_at(m, "mode", 0, "'mode' is deterministic or timing, not "
					"'%s'", mode);
	t->compare.deterministic = t->deterministic;
	if (bg_console_parse(console, &t->console) < 0)
		return bg_conf_error_at(m, "console", 0, "'console' is verbose or quiet, not '%s'",
					console);
	if (check_boards_use(m, t, lab) < 0)
		return -1;
	if (check_metrics(m, t) < 0 || read_thresholds(thr, t) < 0 ||
	    read_config(m, t, dir, config) < 0)
		return -1;
	/* perf's own default, unless the file gives one */
	if (t->perf_runs && !has_threshold(t, "perf.*") &&
	    bg_compare_config_add_threshold_pair(&t->compare, "perf.*", BG_PERF_THRESHOLD) < 0)
		return -1;
	t->fragments = xcalloc(nfragments, sizeof(*t->fragments));
	for (size_t k = 0; k < nfragments; k++) {
		t->fragments[t->nfragments++] = resolve(dir, fragments[k]);
		if (check_file(m, "fragments", k, t->fragments[k], "'fragments': ") < 0)
			return -1;
	}
	return 0;
}

/* ---- patch series: inboxes and the drop directory ---- */

#define INBOX_POLL_DEFAULT 60

static int check_dir(const struct bg_conf *m, const char *key, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return bg_conf_error_at(m, key, 0, "'%s': cannot read '%s': %s", key, path,
					strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return bg_conf_error_at(m, key, 0, "'%s': '%s' is not a directory", key, path);
	return 0;
}

static int check_tree_ref(const struct bg_service_conf *sc, const struct bg_conf *m,
			  const char *tree)
{
	if (check_required(m, "tree", tree) < 0)
		return -1;
	if (!bg_service_conf_tree(sc, tree))
		return bg_conf_error_at(m, "tree", 0, "'tree': no tree is named '%s'", tree);
	return 0;
}

/* The line of tree t's name in the file (sc->conf holds the file as read). */
static size_t tree_line(const struct bg_service_conf *sc, const struct bg_service_tree *t)
{
	const struct bg_conf_entry *trees = bg_conf_find(&sc->conf, "trees");
	size_t i = (size_t)(t - sc->trees);

	if (!trees || i >= trees->nmaps)
		return 0;
	return bg_conf_find(&trees->maps[i], "name")->line;
}

static int read_inbox(struct bg_service_conf *sc, struct bg_conf *boxes, size_t i,
		      const char *dir)
{
	struct bg_conf *m = &boxes[i];
	struct bg_service_inbox *b = &sc->inboxes[i];
	const struct bg_service_tree *t;
	const char *path;

	if (bg_conf_str(m, "name", NULL, &b->name) < 0 ||
	    bg_conf_str(m, "path", NULL, &path) < 0 ||
	    bg_conf_str(m, "tree", NULL, &b->tree) < 0 ||
	    bg_conf_long(m, "poll", INBOX_POLL_DEFAULT, 10, 86400, &b->poll) < 0 ||
	    bg_conf_check_unused(m) < 0 ||
	    check_required(m, "name", b->name) < 0)
		return -1;
	if (!tree_name_ok(b->name) || strstr(b->name, ".."))
		return bg_conf_error_at(m, "name", 0, "inbox name '%s' must be 1 to %d of "
					"[a-z0-9._-], starting with a letter or a digit, without "
					"'..'", b->name, TREE_NAME_MAX);
	for (size_t k = 0; k < i; k++)
		if (!strcmp(sc->inboxes[k].name, b->name))
			return bg_conf_error_at(m, "name", 0, "inbox '%s' is named twice", b->name);
	/* a trigger of the name, and the mirror mirrors/NAME.git, would take one for the other */
	if ((t = bg_service_conf_tree(sc, b->name)))
		return bg_conf_error_at(m, "name", 0, "inbox '%s' has the name of a tree (line "
					"%zu): give it a name of its own", b->name, tree_line(sc, t));
	if (check_required(m, "path", path) < 0)
		return -1;
	b->path = resolve(dir, path);
	return check_dir(m, "path", b->path) < 0 || check_tree_ref(sc, m, b->tree) < 0 ? -1 : 0;
}

static int read_inboxes(struct bg_service_conf *sc, struct bg_conf *c, const char *dir)
{
	struct bg_conf *boxes, *drop;
	const char *ddir;
	size_t n;

	if (bg_conf_maps(c, "inboxes", &boxes, &n) < 0 || bg_conf_map(c, "drop", &drop) < 0)
		return -1;
	sc->inboxes = xcalloc(n ? n : 1, sizeof(*sc->inboxes));
	for (size_t i = 0; i < n; i++) {
		sc->ninboxes++;
		if (read_inbox(sc, boxes, i, dir) < 0)
			return -1;
	}
	if (!drop)
		return 0;
	if (bg_conf_str(drop, "dir", NULL, &ddir) < 0 ||
	    bg_conf_str(drop, "tree", NULL, &sc->drop_tree) < 0 ||
	    bg_conf_check_unused(drop) < 0 || check_required(drop, "dir", ddir) < 0)
		return -1;
	sc->drop_dir = resolve(dir, ddir);
	return check_dir(drop, "dir", sc->drop_dir) < 0 ||
	       check_tree_ref(sc, drop, sc->drop_tree) < 0 ? -1 : 0;
}

/* ---- the file ---- */

static int read_webhook(struct bg_service_conf *sc, struct bg_conf *w, const char *dir)
{
	const char *where, *secret;

	if (bg_conf_str(w, "listen", NULL, &where) < 0 ||
	    bg_conf_str(w, "secret-file", NULL, &secret) < 0 ||
	    bg_conf_check_unused(w) < 0 ||
	    check_required(w, "listen", where) < 0 ||
	    parse_listen(w, where, &sc->webhook_host, &sc->webhook_port) < 0 ||
	    /* a webhook anyone could call would build whatever they name */
	    check_required(w, "secret-file", secret) < 0)
		return -1;
	sc->webhook_secret_file = resolve(dir, secret);
	return 0;
}

/* artifacts: {listen: HOST:PORT}: where LAVA's workers fetch images (lab/artifacts.h) */
static int read_artifacts(struct bg_service_conf *sc, struct bg_conf *a)
{
	const char *where;

	if (bg_conf_str(a, "listen", NULL, &where) < 0 ||
	    bg_conf_check_unused(a) < 0 ||
	    check_required(a, "listen", where) < 0)
		return -1;
	return parse_listen(a, where, &sc->artifacts_host, &sc->artifacts_port);
}

static int read_conf(struct bg_service_conf *sc, const char *dir)
{
	struct bg_conf *c = &sc->conf, *limits, *webhook, *artifacts, *trees;
	const char *state, *sock, *site, *remote;
	struct stat st;
	size_t ntrees;

	if (bg_conf_str(c, "state", BG_SERVICE_STATE_DEFAULT, &state) < 0 ||
	    bg_conf_map(c, "limits", &limits) < 0 ||
	    bg_conf_long(c, "poll", 300, 10, 86400, &sc->poll) < 0 ||
	    bg_conf_map(c, "webhook", &webhook) < 0 ||
	    bg_conf_map(c, "artifacts", &artifacts) < 0 ||
	    bg_conf_str(c, "socket", NULL, &sock) < 0 ||
	    bg_conf_str(c, "site", NULL, &site) < 0 ||
	    bg_conf_str(c, "ccache-remote", NULL, &remote) < 0 ||
	    bg_conf_maps(c, "trees", &trees, &ntrees) < 0)
		return -1;
	if (remote && !bg_ccache_remote_path(remote))
		return bg_conf_error_at(c, "ccache-remote", 0, "'ccache-remote': %s",
					bg_error_last());
	sc->ccache_remote = remote ? xstrdup(remote) : NULL;
	sc->builds = 1;
	sc->boots = 2;
	if (limits && (bg_conf_long(limits, "builds", 1, 1, 64, &sc->builds) < 0 ||
		       bg_conf_long(limits, "boots", 2, 1, 256, &sc->boots) < 0 ||
		       bg_conf_check_unused(limits) < 0))
		return -1;
	if (webhook && read_webhook(sc, webhook, dir) < 0)
		return -1;
	if (artifacts && read_artifacts(sc, artifacts) < 0)
		return -1;
	if (read_report(sc, dir) < 0)
		return -1;
	sc->trees = xcalloc(ntrees, sizeof(*sc->trees));
	for (size_t i = 0; i < ntrees; i++) {
		bg_compare_config_init(&sc->trees[i].compare);
		sc->ntrees++;
		if (read_tree(sc, trees, i, dir, bg_lab_dir()) < 0)
			return -1;
	}
	if (read_inboxes(sc, c, dir) < 0)
		return -1;
	if (bg_conf_check_unused(c) < 0 ||
	    check_given(c, "state", state) < 0 || check_given(c, "socket", sock) < 0 ||
	    check_given(c, "site", site) < 0)
		return -1;
	if (!bg_conf_find(c, "trees"))
		return bg_conf_error_at(c, "trees", 0, "'trees' is missing: the service watches "
					"at least one");
	if (!ntrees)
		return bg_conf_error_at(c, "trees", 0, "'trees' is an empty list: the service "
					"watches at least one");
	sc->state = resolve(dir, state);
	sc->site = site ? resolve(dir, site) : bg_path_join(sc->state, "site");
	/* made when missing; a file there would fail every rewrite after each result */
	if (site && stat(sc->site, &st) == 0 && !S_ISDIR(st.st_mode))
		return bg_conf_error_at(c, "site", 0, "'site': '%s' is not a directory", sc->site);
	if (sc->report.enabled && !sc->report.site_url)
		sc->report.site_url = xasprintf("file://%s", sc->site);
	sc->socket = sock ? resolve(dir, sock) : bg_path_join(sc->state, "bootgate.sock");
	if (strlen(sc->socket) > SOCKET_PATH_MAX)
		return bg_conf_error_at(c, sock ? "socket" : "state", 0, "the socket '%s' is "
					"longer than a Unix socket's path can be (%zu bytes)%s",
					sc->socket, SOCKET_PATH_MAX,
					sock ? "" : ": give 'socket' a shorter one");
	return 0;
}

int bg_service_conf_load(const char *path, struct bg_service_conf *sc)
{
	char *text, *dir;
	size_t len;
	int ret;

	memset(sc, 0, sizeof(*sc));
	if (!(text = bg_read_file(path, BG_CONF_FILE_MAX, &len)))
		return -1;
	dir = file_dir(path);
	ret = bg_service_conf_load_mem(path, dir, text, len, sc);
	free(dir);
	free(text);
	return ret;
}

int bg_service_conf_load_mem(const char *name, const char *dir, const char *text, size_t len,
			     struct bg_service_conf *sc)
{
	int ret;

	memset(sc, 0, sizeof(*sc));
	if (bg_conf_load_nested_mem(name, text, len, &sc->conf) < 0)
		return -1;
	sc->file = xstrdup(name);
	ret = read_conf(sc, dir);
	/* nothing half-read is left behind; releasing keeps the error */
	if (ret < 0)
		bg_service_conf_release(sc);
	return ret;
}

int bg_service_conf_check_references(struct bg_service_conf *sc)
{
	struct bg_conf *trees;
	size_t n;

	if (bg_conf_maps(&sc->conf, "trees", &trees, &n) < 0)
		return -1;
	for (size_t i = 0; i < n && i < sc->ntrees; i++) {
		const char *ref = sc->trees[i].reference;

		if (ref && bg_git_is_repository(ref) < 0)
			return bg_conf_error_at(&trees[i], "reference", 0, "'reference': %s",
						bg_error_last());
	}
	return 0;
}

char *bg_service_conf_webhook_secret(const struct bg_service_conf *sc, size_t max, size_t *len)
{
	const struct bg_conf_entry *e = bg_conf_find(&sc->conf, "webhook");
	char *secret = bg_secret_read(sc->webhook_secret_file, max, len);

	if (!secret && e && e->nmaps)
		bg_conf_error_at(&e->maps[0], "secret-file", 0, "'secret-file': %s",
				 bg_error_last());
	return secret;
}

unsigned bg_service_boot_slots(const struct bg_service_conf *c, const struct bg_service_tree *t,
			       const char *board)
{
	size_t qemu = 0;
	bool lava = false;
	long share;

	for (size_t i = 0; i < t->ngated; i++) {
		qemu += !t->gated_lava[i];
		if (!strcmp(t->gated[i], board))
			lava = t->gated_lava[i];
	}
	if (lava)
		return 0;
	share = qemu ? c->boots / (long)qemu : c->boots;
	return share > 0 ? (unsigned)share : 1;
}

void bg_service_conf_release(struct bg_service_conf *sc)
{
	for (size_t i = 0; i < sc->ntrees; i++) {
		struct bg_service_tree *t = &sc->trees[i];

		free(t->reference);
		free(t->config_name);
		for (size_t k = 0; k < t->ngated; k++)
			free(t->gated[k]);
		free(t->gated);
		free(t->gated_lava);
		for (size_t k = 0; k < t->nfragments; k++)
			free(t->fragments[k]);
		free(t->fragments);
		bg_compare_config_release(&t->compare);
	}
	free(sc->report.smtp_password_file);
	free(sc->report.site_url);
	free(sc->site);
	free(sc->trees);
	for (size_t i = 0; i < sc->ninboxes; i++)
		free(sc->inboxes[i].path);
	free(sc->inboxes);
	free(sc->drop_dir);
	free(sc->state);
	free(sc->webhook_host);
	free(sc->webhook_secret_file);
	free(sc->ccache_remote);
	free(sc->artifacts_host);
	free(sc->socket);
	free(sc->file);
	bg_conf_release(&sc->conf);
	memset(sc, 0, sizeof(*sc));
}

const struct bg_service_tree *bg_service_conf_tree(const struct bg_service_conf *sc,
						    const char *name)
{
	for (size_t i = 0; i < sc->ntrees; i++)
		if (!strcmp(sc->trees[i].name, name))
			return &sc->trees[i];
	return NULL;
}

const struct bg_service_inbox *bg_service_conf_inbox(const struct bg_service_conf *sc,
						      const char *name)
{
	for (size_t i = 0; i < sc->ninboxes; i++)
		if (!strcmp(sc->inboxes[i].name, name))
			return &sc->inboxes[i];
	return NULL;
}
