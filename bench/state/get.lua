-- wrk: GET one stream's bookmark of one of STATE_IDS state IDs, chosen at random.
-- The state IDs are bench:tap-<n>-to-target (n = 1..100), seeded by state.sh.
local ids = 100
local streams = {"orders", "customers", "order_items", "events"}
math.randomseed(os.time())

request = function()
  local path = "/api/v1/states/bench:tap-" .. math.random(1, ids) .. "-to-target/bookmarks/"
      .. streams[math.random(1, #streams)]
  return wrk.format("GET", path)
end

response = function(status, headers, body)
  if status ~= 200 then
    io.stderr:write("unexpected status " .. status .. ": " .. body .. "\n")
  end
end
