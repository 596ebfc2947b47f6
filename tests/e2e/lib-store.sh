# Stored results for the tests that write a store by hand (the mail, the site, hostile
# text): SQL that puts boots read from real consoles and comparisons computed by
# `bootgate compare` into the typed tables (schemas/005-results.sql), as the service
# would. Each function prints SQL; the caller pipes it to sqlite3.

# store_boot ID IMAGE LOG [BOARD [MODE]]: a complete boot of IMAGE whose console is LOG,
# its samples as the parser reads them (each with the line that gave it), named as
# parse/metrics.c names them ("#2" for a second initcall of one name)
store_boot() {
	sb_board=${4:-qemu-x86_64} sb_mode=${5:-deterministic}
	echo "INSERT INTO boots (id, image_sha256, board, mode, outcome, console, created)" \
		"VALUES ($1, '$2', '$sb_board', '$sb_mode', 'complete', '$(echo "$3" |
		sed "s/'/''/g")', 0);"
	bootgate parse --json "$3" | jq -r --arg id "$1" '
		def q: "\u0027" + gsub("\u0027"; "\u0027\u0027") + "\u0027";
		def named(p; f): reduce .[] as $x ({seen: {}, out: []};
			.seen[$x | f] += 1 |
			.out += [[p + ($x | f) + (if .seen[$x | f] > 1 then "#\(.seen[$x | f])"
				else "" end), $x.usecs, $x.start_us, $x.end_us, $x.line]]) | .out;
		.logs[0] |
		((.initcalls | named("initcall."; .name)) + (.probes | named("probe."; .device)) +
		 [["boot.init", .milestones.init_us, null, null, .milestones.init_line]]) |
		to_entries[] | "INSERT INTO samples (boot_id, seq, metric, value, start_us, " +
		"end_us, line) VALUES (\($id), \(.key), \(.value[0] | q), \(.value[1]), " +
		"\(.value[2] // "NULL"), \(.value[3] // "NULL"), \(.value[4] // "NULL"));"'
}

# store_comparison ID ROLE BISECTION BASE CAND VERDICT METRIC "BASE-BOOT:LOG ..."
#   "CAND-BOOT:LOG ...": comparison ID of BASE and CAND (commits) as `bootgate compare`
#   judges the logs, its boots the ids given; BISECTION 0 for none; VERDICT and METRIC
#   the row's own words (the gate's or the series')
store_comparison() {
	sc_id=$1 sc_role=$2 sc_bis=$3 sc_base=$4 sc_cand=$5 sc_verdict=$6 sc_metric=$7
	sc_b=$8 sc_c=$9
	sc_blogs= sc_clogs=
	for x in $sc_b; do sc_blogs="$sc_blogs ${x#*:}"; done
	for x in $sc_c; do sc_clogs="$sc_clogs ${x#*:}"; done
	# shellcheck disable=SC2086
	bootgate compare --json --base $sc_blogs --cand $sc_clogs >"$SCRATCH/compare-$sc_id.json"
	jq -r --arg id "$sc_id" --arg role "$sc_role" --arg bis "$sc_bis" --arg base "$sc_base" \
		--arg cand "$sc_cand" --arg verdict "$sc_verdict" --arg metric "$sc_metric" '
		def n: if . == null then "NULL" else tostring end;
		def q: "\u0027" + gsub("\u0027"; "\u0027\u0027") + "\u0027";
		"INSERT INTO comparisons (id, tree_id, base, cand, board, mode, verdict, metric, " +
		"delta, created, role, bisection_id, boots_base, boots_cand, excluded_base, " +
		"excluded_cand) VALUES (\($id), (SELECT min(id) FROM trees), \($base | q), " +
		"\($cand | q), \u0027qemu-x86_64\u0027, " +
		"\u0027deterministic\u0027, \($verdict | q), \($metric | q), " +
		"\([.verdicts[] | select(.metric == $metric) | .delta][0] | n), 0, \($role | q), " +
		"nullif(\($bis), 0), \(.boots.base), \(.boots.cand), \(.boots.base_excluded), " +
		"\(.boots.cand_excluded));",
		(.verdicts | to_entries[] | "INSERT INTO verdicts (comparison_id, rank, metric, " +
		 "verdict, base_median, cand_median, mad_base, mad_cand, delta, delta_pct, ci_lo, " +
		 "ci_hi, p, q, n_base, n_cand, more_boots, exact) VALUES (\($id), \(.key), " +
		 "\(.value.metric | q), \(.value.verdict | q), \(.value.base_median | n), " +
		 "\(.value.cand_median | n), \(.value.mad_base | n), \(.value.mad_cand | n), " +
		 "\(.value.delta | n), \(.value.delta_pct | n), \(.value.ci[0] | n), " +
		 "\(.value.ci[1] | n), \(.value.p | n), \(.value.q | n), \(.value.n_base), " +
		 "\(.value.n_cand), \(.value.more_boots), \(if .value.exact then 1 else 0 end));")
		' "$SCRATCH/compare-$sc_id.json"
	sc_seq=0
	for x in $sc_b; do
		echo "INSERT INTO comparison_boots VALUES ($sc_id, $sc_seq, 'base', ${x%%:*});"
		sc_seq=$((sc_seq + 1))
	done
	for x in $sc_c; do
		echo "INSERT INTO comparison_boots VALUES ($sc_id, $sc_seq, 'cand', ${x%%:*});"
		sc_seq=$((sc_seq + 1))
	done
}
