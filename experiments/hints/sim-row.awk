# One row of sim.csv from an nvmev-sim fragment run's CSV (pattern, gap
# and hints given by -v p=, g=, h=): the fragmented file's throughput
# relative to the contiguous one, both throughputs, dies used and read
# collisions; the paper's figure for the same case from -v paper=FILE.
BEGIN {
	FS = ","
	while ((getline line < paper) > 0) {
		split(line, r, ",")
		ref[r[1], r[2], "off"] = r[3]; ref[r[1], r[2], "on"] = r[4]
	}
}
/^layout,/ { for (i = 1; i <= NF; i++) col[$i] = i }
/^fragmented,/ { split($0, f, ",") }
/^contiguous,/ { c = $col["mb_per_s"] }
END {
	printf "%s,%s,%s,%.4f,%.1f,%.1f,%d,%d,%d,%s\n", p, g, h,
		f[col["relative"]], f[col["mb_per_s"]], c, f[col["dies_used"]],
		f[col["collisions"]], f[col["collision_wait_us"]], ref[p, g, h]
}
