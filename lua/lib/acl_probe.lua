-- lib/acl_probe.lua: tries, on two throw-away keys of the run's own namespace,
-- every command the layouts' scripts call, and says which ones the calling
-- user may not run (ACLs apply to the commands a script calls). The keys are
-- deleted before the script returns; nothing else is touched.
--
-- KEYS[1]  probe hash   swc-bench:<id>:{probe}:h
-- KEYS[2]  probe zset   swc-bench:<id>:{probe}:z
--
-- Returns: an array of "COMMAND: error" strings, one per refused call
-- (empty when every command is allowed).

local hash_key = KEYS[1]
local zset_key = KEYS[2]

local calls = {
  { 'ZADD', zset_key, 0, 'm' },
  { 'ZCOUNT', zset_key, 0, 1 },
  { 'ZRANGE', zset_key, 0, -1 },
  { 'ZREM', zset_key, 'm' },
  { 'HSET', hash_key, 'f', 1 },
  { 'HINCRBY', hash_key, 'f', 1 },
  { 'HGET', hash_key, 'f' },
  { 'HMGET', hash_key, 'f' },
  { 'HGETALL', hash_key },
  { 'HDEL', hash_key, 'f' },
  { 'EXPIRE', hash_key, 60 },
  { 'TIME' },
}

local refused = {}
for _, call in ipairs(calls) do
  local reply = redis.pcall(unpack(call))
  if type(reply) == 'table' and reply.err then
    refused[#refused + 1] = call[1] .. ': ' .. reply.err
  end
end
redis.pcall('DEL', hash_key, zset_key)
return refused
