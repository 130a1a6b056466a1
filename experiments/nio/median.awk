# The median over runs of make nio (run.sh): reads every
# run's nio.csv (mode,rw,kib,members,mean_us,stdev_us,p99_us,usr_cpu_pct,
# sys_cpu_pct,...) and prints, per metric, NIO variant and QD1 read size,
# the median over the runs of that run's ratio, its spread (min, max),
# the bound and whether the median meets it. The bounds are NIO's (the
# paper's estimator, "nio"): CPU <= 0.40 of classic polling and mean
# latency <= 1.05 of it for 4-32 KiB, mean latency <= 1.05 of interrupts
# for 64 KiB and above. "4-32" rows are each run's mean over those sizes.
# Needs stats.awk (runner_awk).
BEGIN { FS = ","; OFS = "," }
FNR == 1 { run++; next }
$2 == "read" && $4 == 1 {
	mean[run, $1, $3] = $5; cpu[run, $1, $3] = $8 + $9
	cpu_us[run, $1, $3] = ($8 + $9) / 100 * $5	# CPU per call
	if (!($3 in seen)) { seen[$3] = 1; kib[++nk] = $3 }
}
# one row: NAME VARIANT SIZE-LABEL, the per-run values in vals[1..n]
function row(name, var, size, n, bound,   m, met) {
	m = median(vals, n)
	met = bound == "" || var != "nio" ? "-" : (m <= bound ? "yes" : "NO")
	printf "%s,%s,%s,%d,%.3f,%.3f,%.3f,%s,%s\n", name, var, size, n, m, vals[1], vals[n],
		bound == "" ? "-" : "<= " bound, met
}
# the ratio a[x] / a[base] for every run at size k into vals; its count
function per_run(a, x, base, k,   r, n) {
	n = 0
	for (r = 1; r <= run; r++)
		if ((r, x, k) in a && a[r, base, k] > 0)
			vals[++n] = a[r, x, k] / a[r, base, k]
	return n
}
# each run's mean over sizes lo..hi of a[x] / a[base] into vals; count
function per_run_avg(a, x, base, lo, hi,   r, i, k, s, c, n) {
	n = 0
	for (r = 1; r <= run; r++) {
		s = 0; c = 0
		for (i = 1; i <= nk; i++) {
			k = kib[i]
			if (k + 0 >= lo && k + 0 <= hi && (r, x, k) in a && a[r, base, k] > 0) {
				s += a[r, x, k] / a[r, base, k]; c++
			}
		}
		if (c)
			vals[++n] = s / c
	}
	return n
}
# a metric: every size in lo..hi, then the runs' mean over them
function metric(name, a, base, lo, hi, bound,   v, var, i, k, n) {
	for (v = 1; v <= 2; v++) {
		var = v == 1 ? "nio" : "nio_signed"
		for (i = 1; i <= nk; i++) {
			k = kib[i]
			if (k + 0 < lo || k + 0 > hi)
				continue
			if ((n = per_run(a, var, base, k)))
				row(name, var, k, n, bound)
		}
		if ((n = per_run_avg(a, var, base, lo, hi)))
			row(name, var, lo "-" (hi < 1e9 ? hi : "max"), n, bound)
	}
}
# the median of a[x] itself (no ratio) per size lo..hi, for modes x
function absolute(name, a, modes, lo, hi,   m, nm, v, i, k, r, n) {
	nm = split(modes, m, " ")
	for (v = 1; v <= nm; v++)
		for (i = 1; i <= nk; i++) {
			k = kib[i]
			if (k + 0 < lo || k + 0 > hi)
				continue
			n = 0
			for (r = 1; r <= run; r++)
				if ((r, m[v], k) in a)
					vals[++n] = a[r, m[v], k]
			if (n)
				row(name, m[v], k, n, "")
		}
}
END {
	print "metric,variant,kib,runs,median,min,max,bound,met"
	metric("QD1 read CPU / classic polling", cpu, "classic", 4, 32, 0.40)
	metric("QD1 read mean latency / classic polling", mean, "classic", 4, 32, 1.05)
	metric("QD1 read mean latency / interrupts", mean, "interrupt", 64, 1e9, 1.05)
	metric("QD1 read CPU / interrupts", cpu, "interrupt", 4, 64, "")
	absolute("QD1 read CPU per call (us)", cpu_us, "interrupt classic nio", 4, 32)
}
