# Functions the experiments' analyses share (runner_awk loads this file
# before the analysis's own program).

# median(v, n): the median of v[1..n], which it sorts in place (so that
# v[1] and v[n] are then the spread's ends)
function median(v, n,   i, j, t) {
	for (i = 2; i <= n; i++)	# insertion sort: a handful of runs
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}

# ratio(a, b): a / b, 0 when b is not positive
function ratio(a, b) {
	return b > 0 ? a / b : 0
}
