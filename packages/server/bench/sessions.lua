-- wrk: every request from a distinct session (the thread's number, then a counter), with the
-- query of WAI_QUERY after it (by default an hls.js report: a pathway and a throughput).
local threads = 0
local query = os.getenv("WAI_QUERY") or "&_HLS_pathway=%22cdn-a%22&_HLS_throughput=5000000"
-- WAI_SPREAD_MS: each connection waits 0 to that many ms (at random) before its next request,
-- so that requests arrive spread over time rather than in the closed loop's waves.
local spread = tonumber(os.getenv("WAI_SPREAD_MS") or "0")
function setup(thread)
  threads = threads + 1
  thread:set("id", threads)
end
function init(args)
  counter = 0
end
if spread > 0 then
  function delay()
    return math.random(0, spread)
  end
end
function request()
  counter = counter + 1
  local session = string.format("%08x%08x%016x", id, 0, counter)
  return wrk.format("GET", "/steer/reload?wai_session=" .. session .. query)
end
-- The latency's percentiles, µs, for the bench to read (wrk's --latency prints up to 99%).
function done(summary, latency, requests)
  io.write(string.format("wai-latency p50=%d p99=%d p999=%d max=%d\n",
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
