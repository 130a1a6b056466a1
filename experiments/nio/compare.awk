# One run's nio.csv next to the NIO paper's figures (paper.csv, given as
# -v paper=FILE; the paper's Optane 905P, 4-64 KB): QD1 4-64 KiB (our
# 64 KiB uses interrupts, as the paper's threshold does), transactions,
# the three-phase workload (-v phases=FILE); then NIO's bounds for 4-32
# KiB reads: CPU <= 40 % and mean latency <= 105 % of classic polling,
# and no penalty against interrupts at 64 KiB and above (<= 105 %: the
# guest's run-to-run noise). Needs stats.awk (runner_awk).
function fmt3(x, n) { return n ? sprintf("%.3f", x) : "-" }
# the mean over QD1 read sizes lo..hi KiB of a[x] / a[base], formatted;
# sets worst to the largest ratio and bad to how many exceed bound
function avg(a, x, base, lo, hi, bound,   i, k, y, s, c) {
	s = 0; c = 0; worst = 0; bad = 0
	for (i = 1; i <= nk; i++) {
		k = kib[i]
		if (k + 0 < lo || k + 0 > hi)
			continue
		y = ratio(a[x, k, 1], a[base, k, 1]); s += y; c++
		if (y > worst) worst = y
		if (bound && y > bound) bad++
	}
	worst = fmt3(worst, c) " (" bad ")"
	return fmt3(c ? s / c : 0, c)
}
# one row per metric, both NIO variants; with a bound, a worst-size row
function row(name, a, base, lo, hi, bound,   v1, w1, v2) {
	v1 = avg(a, "nio", base, lo, hi, bound); w1 = worst
	v2 = avg(a, "nio_signed", base, lo, hi, bound)
	print name "," ref[name] "," v1 "," v2
	if (bound)
		print name ": worst size (sizes out of bound),," w1 "," worst
}
# transactions (more than one member) of x against interrupts
function txn(x,   key, kk, y, c) {
	y = 0; c = 0
	for (key in mean) {
		split(key, kk, SUBSEP)
		if (kk[1] == x && kk[3] > 1) { y += ratio(mean[key], mean["interrupt", kk[2], kk[3]]); c++ }
	}
	return fmt3(c ? y / c : 0, c)
}
BEGIN {
	FS = ","
	while ((getline line < paper) > 0) {
		split(line, f, ",")
		ref[f[1]] = f[2]
	}
	while ((getline line < phases) > 0) {
		split(line, f, ",")
		if (f[1] == "mode") continue
		rt[f[1]] += f[4]; pc[f[1]] += f[5] + f[6]; np[f[1]]++
	}
}
NR > 1 && $2 == "read" {
	m = $1; mean[m, $3, $4] = $5; sd[m, $3, $4] = $6; cpu[m, $3, $4] = $8 + $9
	if ($4 == 1 && !($3 in ks)) { ks[$3] = 1; kib[++nk] = $3 }
}
END {
	print "metric,paper,nio,nio_signed"
	row("QD1 4-64 KiB reads: mean latency / interrupts", mean, "interrupt", 4, 64)
	row("QD1 4-64 KiB reads: mean latency / classic polling", mean, "classic", 4, 64)
	row("QD1 4-64 KiB reads: latency stdev / interrupts", sd, "interrupt", 4, 64)
	row("QD1 4-64 KiB reads: latency stdev / classic polling", sd, "classic", 4, 64)
	row("QD1 4-64 KiB reads: CPU / interrupts", cpu, "interrupt", 4, 64)
	row("bound: QD1 4-32 KiB reads: CPU / classic polling (<= 0.40)", cpu, "classic", 4, 32, 0.40)
	row("bound: QD1 4-32 KiB reads: mean latency / classic polling (<= 1.05)", mean, "classic", 4, 32, 1.05)
	row("bound: QD1 64 KiB-1 MiB reads: mean latency / interrupts (<= 1.05)", mean, "interrupt", 64, 1e9, 1.05)
	t = "transactions of 4 and 64: mean latency / interrupts"
	print t "," ref[t] "," txn("nio") "," txn("nio_signed")
	if (np["interrupt"] && np["classic"]) {
		t = "three phases: runtime / interrupts"
		printf "%s,%s,%.3f,%.3f\n", t, ref[t], ratio(rt["nio"], rt["interrupt"]), ratio(rt["nio_signed"], rt["interrupt"])
		t = "three phases: runtime / classic polling"
		printf "%s,%s,%.3f,%.3f\n", t, ref[t], ratio(rt["nio"], rt["classic"]), ratio(rt["nio_signed"], rt["classic"])
		t = "three phases: CPU / classic polling"
		printf "%s,%s,%.3f,%.3f\n", t, ref[t], ratio(pc["nio"], pc["classic"]), ratio(pc["nio_signed"], pc["classic"])
	}
}
