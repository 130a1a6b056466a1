# Per round of raw.csv (round,case,drive,iops,mean_us): both drives' IOPS
# over the lone drive's, and each drive's mean latency over the lone
# drive's.
BEGIN { FS = "," }
NR > 1 { v[$1, $2, $3, "iops"] = $4; v[$1, $2, $3, "lat"] = $5; r[$1] = 1 }
END {
	for (n in r) {
		a = v[n, "alone", "first", "iops"]; al = v[n, "alone", "first", "lat"]
		b1 = v[n, "both", "first", "iops"]; b2 = v[n, "both", "second", "iops"]
		if (a == "" || b1 == "" || b2 == "" || !a || !al) continue
		printf "%s,%.3f,%.3f,%.3f\n", n, (b1 + b2) / a,
			v[n, "both", "first", "lat"] / al, v[n, "both", "second", "lat"] / al
	}
}
