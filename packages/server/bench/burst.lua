-- wrk (one thread): the burst of `pnpm bench:server`. WAI_BURST_TOTAL new sessions (steering
-- requests without a session: the server mints each one) arriving at WAI_BURST_RATE a second:
-- every connection's first request at once (WAI_BURST_CONNECTIONS of them), then one request on
-- the schedule start + k ÷ rate each, sent by the connection whose answer came first (at once when
-- the schedule is behind), until WAI_BURST_TOTAL answers are in. Prints, for the bench, the
-- answers other than 200 and the latency's percentiles (µs, from each request's sending).
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } wai_timespec;
int clock_gettime(int clk_id, wai_timespec *tp);
]]
local ts = ffi.new("wai_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

local total = tonumber(os.getenv("WAI_BURST_TOTAL") or "50000")
local rate = tonumber(os.getenv("WAI_BURST_RATE") or "5000")
local query = os.getenv("WAI_QUERY") or "_HLS_pathway=%22cdn-a%22&_HLS_throughput=5000000"
local path = "/steer/reload?" .. query

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

-- The connections share the thread's schedule: one request every 1000 / rate ms.
local interval = 1000 / rate
local start = nil
local slot = tonumber(os.getenv("WAI_BURST_CONNECTIONS") or "0")
local answered = 0
-- Globals: done() reads them from the thread. The burst's first request and last answer, ms.
bad = 0
first = 0
last = 0
function init(args)
  start = now_ms()
  first = start
end
function delay()
  -- The next request's time on the schedule: never before it, at once when late.
  local due = start + slot * interval
  slot = slot + 1
  local wait = due - now_ms()
  if wait < 0 then
    return 0
  end
  return math.floor(wait)
end
function request()
  return wrk.format("GET", path)
end
function response(status, headers, body)
  answered = answered + 1
  last = now_ms()
  if status ~= 200 then
    bad = bad + 1
  end
  if answered >= total then
    wrk.thread:stop()
  end
end
function done(summary, latency, requests)
  local non200 = 0
  local ms = 0
  for _, t in ipairs(threads) do
    non200 = non200 + (t:get("bad") or 0)
    ms = math.max(ms, (t:get("last") or 0) - (t:get("first") or 0))
  end
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write
    + summary.errors.timeout
  io.write(string.format("wai-burst answered=%d non200=%d errors=%d ms=%d\n", summary.requests, non200,
    errors, ms))
  io.write(string.format("wai-latency p50=%d p99=%d p999=%d max=%d\n",
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
