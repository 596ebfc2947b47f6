/*
 * The service's configuration (lab-configs/bootgate.yaml): where the daemon keeps its
 * state, how much it runs at once, its webhook, artifact server and trigger socket, and
 * the trees it watches, each with the boards it boots, its mode, metrics, thresholds and
 * kernel config.
 * Every key is checked and every unknown one refused; each mistake is "file:line:col: why".
 */
#ifndef BG_SERVICE_CONF_H
#define BG_SERVICE_CONF_H

#include "util/compat.h"
#include "decide/verdict.h"
#include "conf/board.h"
#include "conf/conf.h"

#define BG_SERVICE_STATE_DEFAULT "/var/lib/bootgate"

enum bg_kconfig {
	BG_KCONFIG_TINY,      /* make tinyconfig */
	BG_KCONFIG_TARGET,    /* make NAME, a defconfig target such as x86_64_defconfig */
	BG_KCONFIG_FILE,      /* a full .config file */
};

/* A tree's mail: who gets its reports. */
struct bg_mail_conf {
	char **to, **cc;      /* the list(s), and copies: each "Name <addr>" or "addr" */
	size_t nto, ncc;
	char **maintainers;   /* the people mailed in every mode */
	size_t nmaintainers;
	bool send_list;       /* send: list; else maintainers (the default): no list */
	/* regzbot: yes: a culprit's mail says "#regzbot introduced:" and Cc's the list below */
	bool regzbot;
};

/* The kernel's regression list, read by regzbot (handling-regressions.rst) */
#define BG_MAIL_REGRESSIONS "regressions@lists.linux.dev"

struct bg_service_tree {
	const char *name;     /* [a-z0-9][a-z0-9._-]*, at most 64: names paths and reports */
	const char *url;      /* for git: no space, no control character, no leading '-' */
	const char *branch;   /* a valid branch name */
	char *reference;      /* a repository whose objects the mirror borrows; NULL: none */
	char **arches;        /* each has a board qemu-ARCH.yaml in the lab */
	size_t narches;
	char **boards;        /* each is boards/NAME.yaml in the lab; arches or boards, or both */
	size_t nboards;
	/*
	 * Every board it is gated on: its boards, then qemu-ARCH for each of its arches, each
	 * named as its file and its name: key; gated_lava[i]: board i boots in a LAVA lab.
	 */
	char **gated;
	bool *gated_lava;
	size_t ngated;
	bool deterministic;   /* mode: deterministic (QEMU -icount), else timing */
	enum bg_console console;   /* console: verbose (the default) or quiet */
	char **metrics;       /* the patterns a gate looks at; none: every metric */
	size_t nmetrics;
	/* the thresholds, in the file's order; .deterministic as above, the rest defaults */
	struct bg_compare_config compare;
	long poll;            /* seconds between fetches */
	enum bg_kconfig config;
	char *config_name;    /* "tinyconfig", the target, or the .config file */
	char **fragments;     /* merged on top of the config, in order */
	size_t nfragments;
	/* perf-runs: 0, or the builds make perf too and each boot times `perf trace` so often */
	long perf_runs;
	struct bg_mail_conf mail;
};

#define BG_REPORT_MIN_CONFIDENCE 0.9
/* The threshold of perf.* in a tree with perf-runs, unless its thresholds give one. */
#define BG_PERF_THRESHOLD "5%:1000"

/* report: how results are told. enabled false: the key is absent, nothing is mailed. */
struct bg_report_conf {
	bool enabled;
	const char *from;     /* "Name <addr>": the sender, Reported-by:; NULL: no mail */
	const char *smtp;     /* smtp:// or smtps:// URL; NULL: no sending */
	const char *smtp_user;
	char *smtp_password_file;
	char *site_url;       /* Closes: SITE/bisection/ID.html; default file://STATE/site */
	double min_confidence;   /* a culprit below it is not mailed */
};

/* A public-inbox followed for patch series (lab/inbox.h). */
struct bg_service_inbox {
	const char *name;     /* as a tree's name: it names the inbox's rows and its source */
	char *path;           /* a public-inbox v2 directory (git/N.git) or one epoch */
	const char *tree;     /* a configured tree: the series are tested on it */
	long poll;            /* s between reads */
};

/*
 * Paths in the file are taken relative to the file's directory; here they are all
 * absolute, owned by the struct. The const char * strings are borrowed from conf.
 */
struct bg_service_conf {
	char *file;           /* as given to load */
	char *state;          /* the SQLite store and the daemon's state */
	long builds, boots;   /* at once */
	long poll;            /* the trees' default, s */
	char *webhook_host;   /* NULL: no webhook; an IPv6 address without its brackets */
	unsigned webhook_port;
	char *webhook_secret_file;
	char *artifacts_host; /* NULL: no artifact server; as webhook_host */
	unsigned artifacts_port;
	char *socket;         /* the trigger socket; short enough for a Unix socket */
	char *site;           /* the results site the daemon keeps (default STATE/site) */
	char *ccache_remote;  /* ccache's remote storage its builds share, or NULL (board.h) */
	struct bg_service_tree *trees;
	size_t ntrees;
	struct bg_service_inbox *inboxes;
	size_t ninboxes;
	char *drop_dir;       /* NULL: no drop directory */
	const char *drop_tree;
	struct bg_report_conf report;
	struct bg_conf conf;
};

/*
 * Reads the file once (a regular file, at most 1 MiB) and checks it whole: arches and
 * boards against the lab (bg_lab_dir()), the config file and fragments as readable
 * files. The reference and the secret file are not opened: the daemon needs them, not
 * the reader. 0, or -1 with bg_error_last() = "file:line:col: why" and c released.
 */
int bg_service_conf_load(const char *path, struct bg_service_conf *c);
/*
 * The same from a file already read: name is how errors call it, dir the directory its
 * relative paths are taken from.
 */
int bg_service_conf_load_mem(const char *name, const char *dir, const char *text, size_t len,
			     struct bg_service_conf *c);
/*
 * What the daemon alone opens, checked for bootgated -n: each tree's reference is a git
 * repository (else the tree's first fetch fails). 0, or -1 with "file:line:col: why".
 */
int bg_service_conf_check_references(struct bg_service_conf *c);
/*
 * The webhook's secret, read as bg_secret_read reads it (max bytes at most, *len its
 * length), for c with a webhook; free it with bg_secret_free. NULL with
 * "file:line:col: 'secret-file': why".
 */
char *bg_service_conf_webhook_secret(const struct bg_service_conf *c, size_t max, size_t *len);
void bg_service_conf_release(struct bg_service_conf *c);
/* The tree called name, borrowed from c; NULL if none is. */
const struct bg_service_tree *bg_service_conf_tree(const struct bg_service_conf *c,
						    const char *name);
/*
 * The QEMU boots at once a job of tree t on board takes of c's limits.boots (each takes a
 * core): a fair share among t's QEMU boards, at least 1, so that they boot side by side;
 * 0 on a LAVA board, whose boots run on the lab's machines and take none of ours.
 */
unsigned bg_service_boot_slots(const struct bg_service_conf *c, const struct bg_service_tree *t,
			       const char *board);
/* The inbox called name, borrowed from c; NULL if none is. */
const struct bg_service_inbox *bg_service_conf_inbox(const struct bg_service_conf *c,
						      const char *name);

#endif
