-- Shared by the benchmark's wrk scripts: seeds each thread's random numbers differently and, when
-- the run ends, prints one machine-readable line that Benchmarks/bench.py parses:
--   BENCH_RESULT {"requests":..,"duration_us":..,"non2xx":..,"p50_us":..,...}
-- wrk counts every response with a status above 399 in errors.status, so failures are never
-- mistaken for fast successes.
local report = {}

local threads = {}

function report.setup(thread)
   threads[#threads + 1] = thread
   thread:set("thread_seed", os.time() * 1000 + #threads)
end

function report.seed()
   math.randomseed(thread_seed or os.time())
end

-- Random key in 1..BENCH_PEOPLE (the generated Person rows; posted rows are left alone).
function report.random_person()
   return math.random(1, tonumber(os.getenv("BENCH_PEOPLE") or "1000"))
end

-- wrk sends each thread's requests from a pool prepared once, so building them costs nothing
-- during the measurement.
function report.pool(build, size)
   local requests = {}
   for i = 1, size or 1024 do
      requests[i] = build(i)
   end
   local index = 0
   return function()
      index = index % #requests + 1
      return requests[index]
   end
end

-- With BENCH_PROBE set (a short one-connection run before the measurement), the first response
-- of every status is printed, so the results say why a scenario fails:
--   BENCH_PROBE {"status":404,"body":"..."}
local seen_status = {}
local probe_responses = 0

local function json_string(text)
   return '"' .. text:gsub('[%c"\\]', function(c)
      if c == '"' or c == "\\" then return "\\" .. c end
      return string.format("\\u%04x", c:byte())
   end) .. '"'
end

function report.probe_response(status, headers, body)
   if not seen_status[status] then
      seen_status[status] = true
      local inner = {}
      for code in (body or ""):gmatch("HTTP/1%.1 (%d%d%d)") do
         inner[#inner + 1] = code
      end
      io.write(string.format('BENCH_PROBE {"status":%d,"inner":[%s],"body":%s}\n',
         status, table.concat(inner, ","), json_string((body or ""):sub(1, 600))))
   end
   probe_responses = probe_responses + 1
   if probe_responses >= 20 then
      wrk.thread:stop()
   end
end

-- wrk hands each response to Lua only if a global response() exists, which slows it down: so
-- scripts install it only when probing.
function report.install_probe()
   if os.getenv("BENCH_PROBE") then
      response = report.probe_response
   end
end

-- A $batch is answered 202 even when its change set fails: the real statuses are inside the
-- multipart body ("HTTP/1.1 201 Created", or one "HTTP/1.1 400 ..." for a failed change set).
-- Scripts that send batches count them here, per thread; done() adds them up.
function report.count_inner_statuses(body)
   for code in (body or ""):gmatch("HTTP/1%.1 (%d%d%d)") do
      local status = tonumber(code)
      if status >= 200 and status < 300 then
         inner_ok = (inner_ok or 0) + 1
      else
         inner_failures = (inner_failures or 0) + 1
      end
   end
end

function report.done(summary, latency, requests)
   local e = summary.errors
   local ok, failures = 0, 0
   for _, thread in ipairs(threads) do
      ok = ok + (thread:get("inner_ok") or 0)
      failures = failures + (thread:get("inner_failures") or 0)
   end
   io.write(string.format(
      'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"non2xx":%d,' ..
      '"connect_errors":%d,"read_errors":%d,"write_errors":%d,"timeouts":%d,' ..
      '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f,' ..
      '"inner_ok":%d,"inner_failures":%d}\n',
      summary.requests, summary.duration, summary.bytes, e.status,
      e.connect, e.read, e.write, e.timeout,
      latency:percentile(50), latency:percentile(90), latency:percentile(99),
      latency.max, latency.mean, ok, failures))
end

return report
