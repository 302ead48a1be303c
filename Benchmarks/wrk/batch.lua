-- POST <service root>/$batch: one changeset of 10 changes (5 inserts of Person, 5 MERGEs of random
-- generated persons), in the multipart/mixed format of MS-ODATA 2.2.7.6, request URIs relative to
-- the service root. Expected answer: 202 Accepted, each change answered inside the changeset
-- (counted by report.count_inner_statuses, since the outer 202 hides a failed change set).
local report = dofile(os.getenv("BENCH_WRK_DIR") .. "/report.lua")

setup = report.setup
done = report.done

-- Every answer is read for the statuses of the 10 changes inside it.
function response(status, headers, body)
   report.count_inner_statuses(body)
end
if os.getenv("BENCH_PROBE") then
   response = function(status, headers, body)
      report.count_inner_statuses(body)
      report.probe_response(status, headers, body)
   end
end

local BATCH = "batch_6f1c2a8e-bench"
local CHANGESET = "changeset_0d9b7e41-bench"

local function part(lines, content_id, method, uri, body)
   lines[#lines + 1] = "--" .. CHANGESET
   lines[#lines + 1] = "Content-Type: application/http"
   lines[#lines + 1] = "Content-Transfer-Encoding: binary"
   lines[#lines + 1] = ""
   lines[#lines + 1] = method .. " " .. uri .. " HTTP/1.1"
   lines[#lines + 1] = "Content-Type: application/json"
   lines[#lines + 1] = "Content-ID: " .. content_id
   lines[#lines + 1] = ""
   lines[#lines + 1] = body
end

local function batch_body(i)
   local lines = {
      "--" .. BATCH,
      "Content-Type: multipart/mixed; boundary=" .. CHANGESET,
      "",
   }
   for change = 1, 10 do
      if change % 2 == 1 then
         part(lines, change, "POST", "Person", string.format(
            '{"firstName":"Batch%d","lastName":"Poster","ssn":null,"createDate":"\\/Date(%d)\\/"}',
            i, 1257008908440 + change))
      else
         part(lines, change, "MERGE", "Person(" .. report.random_person() .. ")",
            string.format('{"lastName":"Batched%d"}', math.random(0, 99999)))
      end
   end
   lines[#lines + 1] = "--" .. CHANGESET .. "--"
   lines[#lines + 1] = "--" .. BATCH .. "--"
   lines[#lines + 1] = ""
   return table.concat(lines, "\r\n")
end

function init(args)
   report.seed()
   local headers = {
      ["Accept"] = "application/json",
      ["Content-Type"] = "multipart/mixed; boundary=" .. BATCH,
      ["DataServiceVersion"] = "1.0",
      ["MaxDataServiceVersion"] = "2.0",
   }
   local path = wrk.path .. "$batch"
   request = report.pool(function(i)
      return wrk.format("POST", path, headers, batch_body(i))
   end, 256)
end
