# Each NIO variant (nio: the paper's T_dynamic estimator, nio_signed: the
# signed one) relative to classic polling and to interrupts, per
# rw/size/members of one run's nio.csv, with the fraction of its sleeps
# that overslept.
BEGIN { FS = "," }
NR > 1 {
	k = $2 "," $3 "," $4
	if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	mean[k, $1] = $5; cpu[k, $1] = $8 + $9; sl[k, $1] = $11; os[k, $1] = $12
}
END {
	print "variant,rw,kib,members,cpu_over_classic,mean_over_classic,mean_over_interrupt,oversleep_fraction"
	for (v = 1; v <= 2; v++) {
		var = v == 1 ? "nio" : "nio_signed"
		for (i = 1; i <= n; i++) {
			k = order[i]
			if (!((k, var) in mean))
				continue
			printf "%s,%s,%.3f,%.3f,%.3f,%.3f\n", var, k, cpu[k, var] / cpu[k, "classic"],
				mean[k, var] / mean[k, "classic"], mean[k, var] / mean[k, "interrupt"],
				(sl[k, var] > 0 ? os[k, var] / sl[k, var] : 0)
		}
	}
}
