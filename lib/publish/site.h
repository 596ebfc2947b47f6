/*
 * The static results site: pages made from the store, for people (HTML with SVG, no
 * JavaScript, relative links so that it reads from disk as from any server) and for
 * programs (each result's stored JSON beside its page). Paths, which the mails link to:
 *
 *   index.html                      trees, recent commits, bisections, series
 *   tree/NAME.html                  trends of boot.init and the top initcalls
 *   comparison/ID.html, ID.json     a gate's table and boot timeline
 *   bisection/ID.html, ID.json      steps, values, posterior, confirmation
 *   series/ID.html, ID.json         per-patch rows
 *   style.css                       web-static/style.css, carried in the program
 *
 * Every file goes through a temporary in its directory and a rename; one whose content
 * is unchanged is not written; a page whose object left the store is left alone.
 */
#ifndef BG_SITE_H
#define BG_SITE_H

#include "util/compat.h"
#include "store/store.h"

struct bg_site_opts {
	const char *outdir;       /* made when missing */
	const char *url;          /* the site's public base, for canonical links; or NULL */
	/* each file, relative to outdir, once it is written or found unchanged */
	void (*on_file)(const char *rel, bool written, void *data);
	void *data;
};

struct bg_site_stats {
	size_t written, unchanged;
};

/* 0, or -1 with why (outdir not a directory, a file that cannot be written, the store). */
int bg_site_generate(struct bg_store *s, const struct bg_site_opts *o, struct bg_site_stats *st);

/* Whether url can be the site's base: http:// or https://, printable ASCII, no quote. */
bool bg_site_url_ok(const char *url);

/* web-static/style.css (generated into the build by scripts/embed-text.sh). */
extern const char bg_site_css[];

#endif
