/// The Lua scripts of the Redis broker (docs/SCALING.md, "The Redis broker"). Each touches
/// only keys of one room, all named in `KEYS` and sharing the room's hash tag, so they run
/// unchanged on Redis Cluster.
enum RedisBrokerScripts {
  /// Publish: assign the next id, keep the message, announce it — atomically.
  ///
  /// `KEYS`: meta, log, ref key. `ARGV`: channel, MAXLEN, a fresh epoch (used when the meta
  /// hash is missing), body, ref, ref lifetime in seconds.
  /// Returns `{id, epoch, 0}`, or `{id, epoch, 1}` when the ref was seen before (nothing stored).
  static let publish = RedisScript(
    """
    local epoch = redis.call('HGET', KEYS[1], 'epoch')
    if not epoch then
      epoch = ARGV[3]
      redis.call('DEL', KEYS[2])
      redis.call('HSET', KEYS[1], 'epoch', epoch, 'last', 0)
    end
    local prior = redis.call('GET', KEYS[3])
    if prior then return {tonumber(prior), epoch, 1} end
    local id = redis.call('HINCRBY', KEYS[1], 'last', 1)
    redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[2], id .. '-0', 'm', ARGV[4])
    redis.call('PUBLISH', ARGV[1], 'sb1 ' .. id .. ' ' .. epoch .. ' ' .. ARGV[5] .. ' ' .. ARGV[4])
    redis.call('SET', KEYS[3], id, 'NX', 'EX', ARGV[6])
    return {id, epoch, 0}
    """)

  /// Read: the room's epoch and last id (creating the meta hash with a fresh epoch when it
  /// is missing, and dropping a stream left from a lost epoch), and kept messages.
  ///
  /// `KEYS`: meta, log. `ARGV`: a fresh epoch, mode (`after` or `newest`), id, count.
  /// `after`: up to count entries with ids above id, oldest first; `newest`: the newest
  /// count entries, newest first. Returns `{epoch, last, entries}`.
  static let read = RedisScript(
    """
    if redis.call('HSETNX', KEYS[1], 'epoch', ARGV[1]) == 1 then
      redis.call('HSET', KEYS[1], 'last', 0)
      redis.call('DEL', KEYS[2])
    end
    local meta = redis.call('HMGET', KEYS[1], 'epoch', 'last')
    local entries = {}
    local count = tonumber(ARGV[4])
    if count > 0 then
      if ARGV[2] == 'after' then
        entries = redis.call('XRANGE', KEYS[2], (tonumber(ARGV[3]) + 1) .. '-0', '+', 'COUNT', count)
      else
        entries = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', count)
      end
    end
    return {meta[1], tonumber(meta[2] or '0'), entries}
    """)

  /// ``publish`` with `SPUBLISH` for `PUBLISH`: on a cluster the room's channel is a shard
  /// channel in the room's slot, announced by the master that runs the script only.
  static let shardedPublish = RedisScript(
    publish.source.replacing("redis.call('PUBLISH',", with: "redis.call('SPUBLISH',"))
}
