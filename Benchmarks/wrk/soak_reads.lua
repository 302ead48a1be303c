-- GET the lines of the file SOAK_PATHS in turn, each thread from its own random place in the list.
-- A line is a path under the service root, already percent-encoded, optionally preceded by an
-- Accept value and a tab ("application/xml<TAB>$metadata"); Benchmarks/soak.py writes the file.
local report = dofile(os.getenv("BENCH_WRK_DIR") .. "/report.lua")

setup = report.setup
done = report.done

function init(args)
   report.seed()
   local lines = {}
   for line in io.lines(os.getenv("SOAK_PATHS")) do
      if line ~= "" then lines[#lines + 1] = line end
   end
   local offset = math.random(#lines)
   request = report.pool(function(i)
      local line = lines[(offset + i) % #lines + 1]
      local accept, path = line:match("^([^\t]*)\t(.*)$")
      if not accept then accept, path = "application/json", line end
      return wrk.format("GET", wrk.path .. path, { ["Accept"] = accept })
   end, #lines)
end
