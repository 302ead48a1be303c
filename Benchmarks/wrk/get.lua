-- GET <service root>/<BENCH_PATH>, where each "{n}" in BENCH_PATH becomes a random Person key.
-- Examples: BENCH_PATH='Person({n})', BENCH_PATH='Person?$top=20' (already percent-encoded).
local report = dofile(os.getenv("BENCH_WRK_DIR") .. "/report.lua")
local template = os.getenv("BENCH_PATH") or ""
local headers = { ["Accept"] = "application/json" }

setup = report.setup
done = report.done
report.install_probe()

function init(args)
   report.seed()
   local root = wrk.path
   if template:find("{n}", 1, true) then
      request = report.pool(function()
         local path = template:gsub("{n}", tostring(report.random_person()))
         return wrk.format("GET", root .. path, headers)
      end)
   else
      local fixed = wrk.format("GET", root .. template, headers)
      request = function() return fixed end
   end
end
