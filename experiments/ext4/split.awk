# The console's "TAG k=v... hints=H csv: LINE" lines as -v out=DIR's
# <test>.csv, the TAG's parameters and hints as leading columns.
/^ext4_[a-z0-9]+:( .*)? hints=(on|off) csv: / {
	test = $1; sub(/:$/, "", test)
	line = $0; sub(/^.* csv: /, "", line)
	params = ""; names = ""
	for (i = 2; i <= NF && $i != "csv:"; i++) {
		split($i, kv, "="); names = names kv[1] ","; params = params kv[2] ","
	}
	f = out "/" test ".csv"
	if (line ~ /^file,/) { if (!(f in seen)) { print names line > f; seen[f] = 1 } }
	else print params line > f
}
