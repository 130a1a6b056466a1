# gnuplot's data for one direction (-v rw=read|write) of a run's nio.csv:
# per QD1 size, the mean latency and the CPU of interrupts, classic
# polling, hybrid polling and NIO.
BEGIN { FS = "," }
NR > 1 && $2 == rw && $4 == 1 {
	if (!($3 in s)) { s[$3] = 1; o[++n] = $3 }
	m[$3, $1] = $5; c[$3, $1] = $8 + $9
}
END {
	for (i = 1; i <= n; i++) {
		k = o[i]
		print k, m[k, "interrupt"], m[k, "classic"], m[k, "hybrid"], m[k, "nio"],
			c[k, "interrupt"], c[k, "classic"], c[k, "hybrid"], c[k, "nio"]
	}
}
