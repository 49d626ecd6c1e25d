/**
 * The Lua script that appends one event to a session's stream only if its epoch is not below the
 * epoch of the stream's last entry, in one step on the Redis server: a worker that lost its
 * session's lease and publishes late (its connection was cut, or it was paused) cannot put an
 * entry after the new owner's. Every entry carries its epoch as a field of its own beside the
 * event, so the check reads no JSON.
 *
 * KEYS[1] the stream; ARGV: epoch, entry (the event as JSON), MAXLEN threshold, TTL in seconds.
 * Returns 1 when appended, 0 when refused as stale.
 */
export const FENCED_APPEND_SCRIPT = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
if last then
  local fields = last[2]
  for i = 1, #fields, 2 do
    if fields[i] == 'epoch' and tonumber(fields[i + 1]) > tonumber(ARGV[1]) then return 0 end
  end
end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*', 'entry', ARGV[2], 'epoch', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
`;
