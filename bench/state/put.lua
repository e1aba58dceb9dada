-- wrk: PUT one stream's bookmark (a new value every time, so every request writes a version)
-- of one of 100 state IDs chosen at random. force=true is not needed: no run is active.
local ids = 100
local streams = {"orders", "customers", "order_items", "events"}
local counter = 0
math.randomseed(os.time())

request = function()
  counter = counter + 1
  local path = "/api/v1/states/bench:tap-" .. math.random(1, ids) .. "-to-target/bookmarks/"
      .. streams[math.random(1, #streams)]
  local body = '{"replication_key": "updated_at", "replication_key_value": "2026-11-29T16:00:00.'
      .. string.format("%06d", counter % 1000000) .. 'Z"}'
  return wrk.format("PUT", path, {["Content-Type"] = "application/json"}, body)
end

response = function(status, headers, body)
  if status ~= 200 then
    io.stderr:write("unexpected status " .. status .. ": " .. body .. "\n")
  end
end
