-- wrk: every request from a distinct session (the thread's number, then a counter), with the
-- query of WAI_QUERY after it (by default an hls.js report: a pathway and a throughput).
local threads = 0
local query = os.getenv("WAI_QUERY") or "&_HLS_pathway=%22cdn-a%22&_HLS_throughput=5000000"
function setup(thread)
  threads = threads + 1
  thread:set("id", threads)
end
function init(args)
  counter = 0
end
function request()
  counter = counter + 1
  local session = string.format("%08x%08x%016x", id, 0, counter)
  return wrk.format("GET", "/steer/reload?wai_session=" .. session .. query)
end
