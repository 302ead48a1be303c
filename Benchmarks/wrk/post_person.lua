-- POST <service root>/Person: inserts a new Person (verbose JSON, as a V2 client sends it).
-- Expected answer: 201 Created with the new entry.
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
   local path = wrk.path .. "Person"
   request = report.pool(function(i)
      local body = string.format(
         '{"firstName":"Bench%d","lastName":"Poster","ssn":"%09d","createDate":"\\/Date(%d)\\/"}',
         i, math.random(0, 999999999), 1257008908440 + i * 1000)
      return wrk.format("POST", path, headers, body)
   end)
end
