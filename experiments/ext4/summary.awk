# summary.csv's rows for one workload's CSV (-v t=TEST): one line per case
# and hint setting, from the fragmented rows, with the contiguous rows'
# collisions beside.
BEGIN { FS = "," }
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
	c = ""; for (i = 1; i < col["hints"]; i++) c = c (c == "" ? "" : " ") $i
	key = c SUBSEP $col["hints"]
}
$col["file"] == "contiguous" { cc[key] = $col["collisions"] "," $col["collision_wait_us"] }
$col["file"] == "fragmented" {
	ext = col["extents"] ? $col["extents"] : $col["extents_per_file"]
	order[++n] = key; row[key] = sprintf("%s,%s,%s,%.4f,%s,%d,%.0f", t, c,
		$col["hints"], $col["relative"], ext, $col["collisions"], $col["collision_wait_us"])
}
END { for (i = 1; i <= n; i++) print row[order[i]] "," cc[order[i]] }
