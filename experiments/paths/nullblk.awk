# nullblk.csv from a run's raw.csv: nvmev / null_blk (IOPS) per
# configuration of nvmev, and nvmev's idle CPU (-v idle=FILE), against the
# targets (targets.csv, -v targets=FILE; idle CPU at most 0.5 % of a CPU).
BEGIN {
	FS = ","
	while ((getline line < idle) > 0) {
		split(line, f, ",")
		if (f[1] != "config") { cfg[f[1]] = 1; idlepct[f[1]] = f[5] }
	}
	while ((getline line < targets) > 0) {
		split(line, f, ",")
		if (f[1] == "metric") continue
		metric[++nm] = f[1]; key[nm] = f[2] "," f[3] "," f[4]; refdev[nm] = f[5]; target[nm] = f[6]
	}
}
NR > 1 {
	k = $3 "," $4 "," $5
	# a null_blk row carries the config of the nvmev point it pairs with
	if ($2 == "null_blk") nb[$1, k] = $8
	else if ($2 == "null_blk_wake") nw[$1, k] = $8
	else if ($2 == "nvmev") { nv[$1, k] = $8; cfg[$1] = 1 }
}
# out NAME KEY TARGET CONFIG: nvmev against null_blk (nb) or the
# null_blk whose reader sleeps until a timer wakes it (nw)
function out(name, k, target, c, ref,   r) {
	# a console from before the pairing: one null_blk run for all
	if (!((c, k) in ref) && (("null_blk", k) in ref))
		ref[c, k] = ref["null_blk", k]
	if (!((c, k) in nv) || !((c, k) in ref))
		return
	r = ref[c, k] > 0 ? nv[c, k] / ref[c, k] : 0
	printf "%s,%s,%.0f,%.0f,%.3f,%s,%s\n", name, c, nv[c, k], ref[c, k], r,
		target ? ">= " target : "-", target ? (r >= target ? "yes" : "NO") : "-"
}
END {
	print "metric,nvmev_config,nvmev_iops,null_blk_iops,ratio,target,met"
	for (c in cfg) order[++n] = c
	# default first, then the controls
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (order[j] == "default" || (order[i] != "default" && order[j] < order[i])) {
				t = order[i]; order[i] = order[j]; order[j] = t
			}
	for (i = 1; i <= n; i++) {
		c = order[i]
		for (m = 1; m <= nm; m++)
			if (refdev[m] == "null_blk_wake")
				out(metric[m], key[m], target[m], c, nw)
			else
				out(metric[m], key[m], target[m], c, nb)
		if (c in idlepct)
			printf "idle CPU of the worker (%% of one CPU),%s,%.3f,,,<= 0.5,%s\n", c,
				idlepct[c], idlepct[c] <= 0.5 ? "yes" : "NO"
	}
}
