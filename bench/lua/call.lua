-- wrk script for MCP tools/call load (nanohubmcp bench).
-- Environment, set by mcpbench/wrk.py:
--   MCPB_BODY     the JSON-RPC request; the text __ID__ in it becomes a new integer per request
--                 (a stateful server routes each answer by id, so concurrent ids must differ)
--   MCPB_HEADERS  extra request headers, "Name: value" per line
--   MCPB_EXPECT   text every good answer contains (checked on each response)
-- done() prints one line: MCPB {json summary}.
local body = os.getenv("MCPB_BODY") or ""
local expect = os.getenv("MCPB_EXPECT") or ""
local slot = body:find("__ID__", 1, true)
local head, tail = body, ""
if slot then head, tail = body:sub(1, slot - 1), body:sub(slot + 6) end

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
for line in (os.getenv("MCPB_HEADERS") or ""):gmatch("[^\r\n]+") do
  local name, value = line:match("^([^:]+):%s*(.-)%s*$")
  if name then wrk.headers[name] = value end
end

local all = {}
local index = 0
function setup(thread)
  index = index + 1
  thread:set("base", index * 100000000)
  all[#all + 1] = thread
end

function init(args)
  seq = base or 0
  good, wrong, as_sse, as_json, as_other, sample = 0, 0, 0, 0, 0, ""
end

function request()
  if not slot then return wrk.format(nil, nil, nil, body) end
  seq = seq + 1
  return wrk.format(nil, nil, nil, head .. seq .. tail)
end

function response(status, headers, text)
  if status == 200 and text and text:find(expect, 1, true) then
    good = good + 1
  else
    wrong = wrong + 1
    if sample == "" then sample = status .. " " .. (text or ""):sub(1, 100) end
  end
  local kind = headers["Content-Type"] or headers["content-type"] or ""
  if kind:find("event-stream", 1, true) then as_sse = as_sse + 1
  elseif kind:find("json", 1, true) then as_json = as_json + 1
  else as_other = as_other + 1 end
end

function done(summary, latency, requests)
  local sum = {good = 0, wrong = 0, as_sse = 0, as_json = 0, as_other = 0}
  local first = ""
  for _, t in ipairs(all) do
    for k, _ in pairs(sum) do sum[k] = sum[k] + t:get(k) end
    if first == "" then first = t:get("sample") or "" end
  end
  first = first:gsub("[%c\"\\]", "_")
  local e = summary.errors
  io.write(string.format('MCPB {"requests":%d,"duration_us":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,'
    .. '"write":%d,"status":%d,"timeout":%d},"mean_us":%.1f,"max_us":%d,"p50_us":%d,"p90_us":%d,'
    .. '"p99_us":%d,"good":%d,"wrong":%d,"sse":%d,"json":%d,"other":%d,"first_wrong":"%s"}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency.max, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    sum.good, sum.wrong, sum.as_sse, sum.as_json, sum.as_other, first))
end
