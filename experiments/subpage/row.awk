# One row of sim.csv, files.csv or extents.csv from an nvmev-sim subpage
# run's CSV (append KiB, files, write points and hints given by -v a=,
# n=, w=, h=): relative throughput, NAND reads per file (fragmented and
# contiguous), program units per file, WAF, padded units, evictions.
BEGIN { FS = "," }
/^layout,/ { for (i = 1; i <= NF; i++) col[$i] = i }
/^fragmented,/ { split($0, f, ",") }
/^contiguous,/ { c = $col["nand_reads_per_file"] }
END {
	printf "%s,%s,%s,%s,%.4f,%.2f,%.2f,%.2f,%.4f,%d,%d\n", a, n, w, h,
		f[col["relative"]], f[col["nand_reads_per_file"]], c,
		f[col["program_units_per_file"]], f[col["waf"]],
		f[col["pad_units"]], f[col["wpt_evictions"]]
}
