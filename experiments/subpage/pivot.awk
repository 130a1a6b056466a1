# A results table from sim.csv, files.csv or extents.csv (run.sh): one
# row per value of column -v by= (1: append KiB, 2: files), one column per
# setting in the order the sweep wrote them (hints off, then each number
# of write points with hints), each cell "relative (column -v extra=)":
# NAND reads per file (6) or evictions (11).
BEGIN { FS = "," }
NR == 1 { head = by == 1 ? "append_kib" : "files"; next }
{
	set = $4 == "off" ? "hints off" : "on " $3 " wp"
	if (!(set in seen_set)) { seen_set[set] = 1; sets[++ns] = set }
	if (!($by in seen_row)) { seen_row[$by] = 1; rows[++nr] = $by }
	cell[$by, set] = sprintf(extra == 6 ? "%.3f (%.1f)" : "%.3f (%d)", $5, $extra)
}
END {
	line = head
	for (j = 1; j <= ns; j++) line = line "," sets[j]
	print line
	for (i = 1; i <= nr; i++) {
		line = rows[i]
		for (j = 1; j <= ns; j++) line = line "," cell[rows[i], sets[j]]
		print line
	}
}
