-- wrk: plain GETs of the URL given (the minimal server, (a)), with the latency's percentiles, µs,
-- for the bench to read (wrk's --latency prints up to 99%).
function done(summary, latency, requests)
  io.write(string.format("wai-latency p50=%d p99=%d p999=%d max=%d\n",
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
