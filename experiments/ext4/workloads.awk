# The page's table from summary.csv: per workload and case (the DoF sweep
# apart), the fraction of contiguous with hints off and on, next to the
# paper's (paper.csv, -v paper=FILE: its emulator, and its artifact run).
BEGIN {
	FS = ","
	while ((getline line < paper) > 0) {
		split(line, p, ",")
		ref[p[1] SUBSEP p[2]] = p[3] "," p[4] "," p[5] "," p[6]
	}
}
NR > 1 && $1 != "ext4_dof" {
	k = $1 SUBSEP $2
	if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	v[k, $3] = sprintf("%.3f", $4)
}
END {
	print "workload,case,hints_off,hints_on,paper_off,paper_on,artifact_off,artifact_on"
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, kk, SUBSEP)
		r = (k in ref) ? ref[k] : "-,-,-,-"
		print kk[1] "," kk[2] "," ((k, "off") in v ? v[k, "off"] : "-") "," \
			((k, "on") in v ? v[k, "on"] : "-") "," r
	}
}
