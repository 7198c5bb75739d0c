-- stoplight-v5/record_success.lua: record one success as one sorted-set member.
--
-- KEYS[1]  metadata hash      stoplight:v5:metadata:<name>
-- KEYS[2]  hour sorted set    stoplight:v5:metrics:<name>:success:<hour_start>
-- ARGV[1]  member id          24 hex characters, unique per event
-- ARGV[2]  event time         seconds, fractional allowed; '' = Redis TIME
--
-- Returns: the integer second the event was scored with.
--include lib/now.lua
--include lib/outcome.lua

local metadata_key = KEYS[1]
local events_key = KEYS[2]
local member_id = ARGV[1]
local second = math.floor(swc_now(ARGV[2]))

local EVENTS_TTL_SECONDS = 86400
local METADATA_TTL_SECONDS = 604800

redis.call('ZADD', events_key, second, member_id)
redis.call('EXPIRE', events_key, EVENTS_TTL_SECONDS)
swc_record_outcome(metadata_key, 'last_success_at', second, 'consecutive_errors', 'consecutive_successes')
redis.call('EXPIRE', metadata_key, METADATA_TTL_SECONDS)

return second
