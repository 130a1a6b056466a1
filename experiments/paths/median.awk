# median.csv from the runs' nullblk.csv files: per metric and
# configuration, the median of the runs' ratios (the idle row: its CPU %),
# min, max, the target and whether the median meets it; rows in the
# order of the runs' tables. Needs stats.awk (runner_awk).
BEGIN { FS = "," }
FNR > 1 {
	k = $1 "," $2
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k; t[k] = $6 }
	v[k, ++n[k]] = $5 != "" ? $5 : $3
}
END {
	print "metric,nvmev_config,runs,median,min,max,target,met_on_median"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		for (j = 1; j <= n[k]; j++) x[j] = v[k, j]
		m = median(x, n[k])
		b = substr(t[k], 4) + 0
		met = t[k] == "-" ? "-" : ((t[k] ~ /^>=/ ? m >= b : m <= b) ? "yes" : "NO")
		printf "%s,%d,%.3f,%.3f,%.3f,%s,%s\n", k, n[k], m, x[1], x[n[k]], t[k], met
	}
}
