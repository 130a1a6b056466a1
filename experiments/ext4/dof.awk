# The DoF sweep of summary.csv, one row per DoF: the fraction of
# contiguous with hints off and on (-v sep=, for CSV, " " for gnuplot).
BEGIN { FS = "," }
$1 == "ext4_dof" {
	split($2, d, " "); v[d[1], $3] = $4
	if (!(d[1] in s)) { s[d[1]] = 1; o[++n] = d[1] }
}
END {
	if (sep == ",") print "dof,hints_off,hints_on"
	for (i = 1; i <= n; i++) printf "%s%s%.3f%s%.3f\n", o[i], sep, v[o[i], "off"], sep, v[o[i], "on"]
}
