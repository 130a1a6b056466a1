# gnuplot's data for the workloads' bars from summary.csv (the DoF sweep
# apart): per workload and case, the fraction of contiguous hints off
# and on.
BEGIN { FS = "," }
NR > 1 && $1 != "ext4_dof" {
	k = $1 " " $2; sub(/^ext4_/, "", k)
	if (!(k in v)) order[++n] = k
	v[k, $3] = $4; v[k] = 1
}
END { for (i = 1; i <= n; i++) printf "\"%s\" %s %s\n", order[i], v[order[i], "off"], v[order[i], "on"] }
