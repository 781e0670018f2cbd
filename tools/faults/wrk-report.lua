-- wrk -s: the run's latency percentiles as one JSON line (wrk's own
-- --latency table stops at p99). Latencies are in microseconds.
done = function(summary, latency, requests)
	local function ms(us) return string.format("%.3f", us / 1000) end
	io.write(string.format('WRKJSON {"requests":%d,"errors":%d,"p50_ms":%s,"p99_ms":%s,' ..
		'"p999_ms":%s,"p9999_ms":%s,"max_ms":%s}\n',
		summary.requests,
		summary.errors.connect + summary.errors.read + summary.errors.write +
			summary.errors.status + summary.errors.timeout,
		ms(latency:percentile(50)), ms(latency:percentile(99)), ms(latency:percentile(99.9)),
		ms(latency:percentile(99.99)), ms(latency.max)))
end
