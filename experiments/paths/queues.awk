# queues.csv from a run's raw.csv: the user-level driver's queue scaling
# at QD32 (columns as in paths.awk).
BEGIN { FS = "," }
NR > 1 && $3 ~ /^uhost_q/ {
	if ($3 == "uhost_q1") base = $8
	row[++n] = $3 "," $6 "," $8 "," $9 "," $10 "," $11 "," $13
}
END {
	print "path,queues,iops,mean_us,p99_us,cpu_us_per_io,late_us,iops_over_1_queue"
	for (i = 1; i <= n; i++) {
		split(row[i], f, ",")
		r = "-"
		if (base > 0) r = sprintf("%.3f", f[3] / base)
		printf "%s,%s\n", row[i], r
	}
}
