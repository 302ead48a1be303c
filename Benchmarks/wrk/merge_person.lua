-- MERGE <service root>/Person(n) for a random generated person: changes firstName only.
-- Expected answer: 204 No Content.
local report = dofile(os.getenv("BENCH_WRK_DIR") .. "/report.lua")

setup = report.setup
done = report.done
report.install_probe()

function init(args)
   report.seed()
   local headers = {
      ["Accept"] = "application/json",
      ["Content-Type"] = "application/json",
      ["DataServiceVersion"] = "1.0",
   }
   request = report.pool(function(i)
      local path = wrk.path .. "Person(" .. report.random_person() .. ")"
      local body = string.format('{"firstName":"Merged%d"}', math.random(0, 99999))
      return wrk.format("MERGE", path, headers, body)
   end)
end
