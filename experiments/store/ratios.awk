# Per workload (rw, qd) of raw.csv (round,store,rw,qd,iops,mean_us): the
# IOPS of each store as the mean over the rounds, and the median over the
# rounds of pages / linear with its spread, each round's pair measured
# back to back. Needs stats.awk (runner_awk).
BEGIN { FS = "," }
NR > 1 { k = $3 "," $4; v[$1, $2, k] = $5; if (!(k in keys)) keys[k] = 1; rounds[$1] = 1 }
END {
	for (k in keys) {
		n = 0; sl = 0; sp = 0
		for (r in rounds) {
			l = v[r, "linear", k]; p = v[r, "pages", k]
			if (l == "" || p == "") continue
			x[++n] = p / l; sl += l; sp += p
		}
		if (!n) continue
		med = median(x, n)
		printf "%s,%.0f,%.0f,%.3f,%.3f,%.3f,%d\n", k, sl / n, sp / n, med, x[1], x[n], n
	}
}
