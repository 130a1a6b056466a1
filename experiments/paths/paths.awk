# paths.csv from a run's raw.csv: nvmev's QD1 points, each path's
# software latency against the interrupt path's of the same configuration
# and direction, next to the thesis's figure for the path (thesis.csv,
# given as -v thesis=FILE).
# raw.csv: 1 config, 2 device, 3 path, 4 rw, 5 qd, 6 queues, 7 ios, 8 iops,
# 9 mean_us, 10 p99_us, 11 cpu_us_per_io, 12 model_us, 13 late_us, 14 sw_us,
# 15 irqs, 16 worker_cpu_us_per_io, 17 device_us
BEGIN {
	FS = ","
	while ((getline line < thesis) > 0) {
		split(line, t, ",")
		th[t[1]] = t[2]
	}
}
NR > 1 && $2 == "nvmev" && $5 == 1 {
	k = $1 SUBSEP $4
	if ($3 == "interrupt") { isw[k] = $14; imean[k] = $9 }
	row[++n] = $0
}
END {
	print "config,path,rw,mean_us,p99_us,cpu_us_per_io,model_us,late_us,sw_us,sw_over_interrupt,mean_over_interrupt,thesis_sw_over_interrupt,irqs,worker_cpu_us_per_io,device_us,outside_device_us"
	for (i = 1; i <= n; i++) {
		split(row[i], f, ",")
		k = f[1] SUBSEP f[4]
		rs = "-"; rm = "-"
		if ((k in isw) && isw[k] > 0) rs = sprintf("%.3f", f[14] / isw[k])
		if ((k in imean) && imean[k] > 0) rm = sprintf("%.3f", f[9] / imean[k])
		out = f[17] == "-" || f[17] == "" ? "-" : sprintf("%.2f", f[9] - f[17])
		printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", f[1], f[3], f[4], f[9], f[10],
			f[11], f[12], f[13], f[14], rs, rm, (f[3] in th) ? th[f[3]] : "-", f[15], f[16], f[17], out
	}
}
