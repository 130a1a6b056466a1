# One row of the fragmented-file table from an nvmev-sim fragment run's
# CSV: kind, gap, relative, the two throughputs, and the paper's figures
# for that workload (paper.csv, given as -v paper=FILE).
BEGIN {
	FS = ","
	while ((getline line < paper) > 0) {
		split(line, p, ",")
		ref[p[1], p[2]] = p[3] "," p[4]
	}
}
/^fragmented,/ { f = $2; r = $3 }
/^contiguous,/ { c = $2 }
END { printf "%s,%s,%.3f,%.1f,%.1f,%s\n", kind, gap, r, f, c, ref[kind, gap] }
