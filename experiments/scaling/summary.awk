# The figures of rounds.csv (round,iops_ratio,first_latency_ratio,
# second_latency_ratio): per figure, the median over the rounds, its
# spread and its target (targets.csv, given as -v targets=FILE: figure,
# low, high; empty: no bound). Needs stats.awk (runner_awk).
BEGIN {
	FS = ","
	while ((getline line < targets) > 0) {
		split(line, t, ",")
		lo[t[1]] = t[2]; hi[t[1]] = t[3]
	}
}
NR == 1 { for (i = 2; i <= NF; i++) name[i] = $i; nf = NF; next }
{ rounds++; for (i = 2; i <= NF; i++) v[i, rounds] = $i }
END {
	print "figure,median,min,max,rounds,target,met"
	for (i = 2; i <= nf; i++) {
		for (r = 1; r <= rounds; r++) x[r] = v[i, r]
		m = median(x, rounds)
		f = name[i]
		target = lo[f] != "" && hi[f] != "" ? lo[f] " - " hi[f] : lo[f] != "" ? ">= " lo[f] : "-"
		met = target == "-" ? "-" : ((lo[f] == "" || m >= lo[f]) && (hi[f] == "" || m <= hi[f]) ? "yes" : "NO")
		printf "%s,%.3f,%.3f,%.3f,%d,%s,%s\n", f, m, x[1], x[rounds], rounds, target, met
	}
}
