/// The Lua scripts of the Redis broker (docs/SCALING.md, "The Redis broker"). Each touches
/// only keys of one room, all named in `KEYS` and sharing the room's hash tag, so they run
/// unchanged on Redis Cluster.
enum RedisBrokerScripts {
  /// Publish: assign the next id, keep the message, announce it — atomically.
  ///
  /// `KEYS`: meta, log, ref key (the client's key when it sent a `ref`, else the node's
  /// ref). `ARGV`: channel, MAXLEN, a fresh epoch (used when the meta hash is missing, or
  /// lost writes), body, the node's ref, ref lifetime in seconds, the epoch the node knows
  /// and the highest id it saw in it (``lostWrites``), and an id and a body's SHA-1 for
  /// ``replacedWrite`` (`0` and empty, except for the first publishes after a reconnect).
  /// Returns `{id, epoch, 0, lost, why}`, or `{id, epoch, 1, lost, why}` when the ref key
  /// was seen before in this epoch (nothing stored, nothing published); `lost` is -1, or the
  /// last id Redis held when it had lost writes and the room started a new epoch (`why` as
  /// for ``read``). The ref key holds `<id>:<epoch>`, so a key that outlived its room's epoch
  /// does not count.
  static let publish = RedisScript(
    """
    \(lostWrites(epoch: "ARGV[7]", seen: "ARGV[8]", fresh: "ARGV[3]"))
    \(replacedWrite(epoch: "ARGV[7]", id: "ARGV[9]", digest: "ARGV[10]", fresh: "ARGV[3]"))
    if not epoch then
      epoch = ARGV[3]
      redis.call('DEL', KEYS[2])
      redis.call('HSET', KEYS[1], 'epoch', epoch, 'last', 0)
    end
    local prior = redis.call('GET', KEYS[3])
    if prior then
      local sep = string.find(prior, ':', 1, true)
      if sep and string.sub(prior, sep + 1) == epoch then
        return {tonumber(string.sub(prior, 1, sep - 1)), epoch, 1, lost, why}
      end
    end
    local id = redis.call('HINCRBY', KEYS[1], 'last', 1)
    redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[2], id .. '-0', 'm', ARGV[4])
    redis.call('PUBLISH', ARGV[1], 'sb1 ' .. id .. ' ' .. epoch .. ' ' .. ARGV[5] .. ' ' .. ARGV[4])
    redis.call('SET', KEYS[3], id .. ':' .. epoch, 'EX', ARGV[6])
    return {id, epoch, 0, lost, why}
    """)

  /// Presence: change this node's entry of one member, count the room's live members on
  /// every node and announce the change on the room's channel — atomically, so each line
  /// carries the count right after its own change.
  ///
  /// `KEYS`: members. `ARGV`: the entry to remove (empty for none), the entry to add (empty
  /// for none), its expiry (ms), now (ms), channel, the announcement after its count
  /// (``RedisBrokerPayload/presenceTail(_:node:)``; empty: announce nothing).
  /// Returns the count.
  static let presence = RedisScript(
    """
    if ARGV[1] ~= '' then redis.call('ZREM', KEYS[1], ARGV[1]) end
    if ARGV[2] ~= '' then redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2]) end
    local count = redis.call('ZCOUNT', KEYS[1], ARGV[4], '+inf')
    if ARGV[6] ~= '' then
      redis.call('PUBLISH', ARGV[5], 'sb1p ' .. count .. ' ' .. ARGV[6])
    end
    return count
    """)

  /// Expire: drop the room's presence entries past their expiry and announce a leave for
  /// each — the members of a node that died or lost Redis. Atomic, so of several nodes
  /// running it only one removes (and announces) an entry. The leave carries the dead
  /// node's id and no colour (entries hold `<node>|<member>|<name>`).
  ///
  /// `KEYS`: members. `ARGV`: now (ms), channel. Returns `{count, name…}`: the room's live
  /// members left, and the names of the entries this call removed (empty when none
  /// expired) — reported by the node that ran it, so once for the cluster (webhooks).
  static let expire = RedisScript(
    """
    local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
    if #gone == 0 then return {0} end
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
    local count = redis.call('ZCOUNT', KEYS[1], ARGV[1], '+inf')
    local names = {count}
    for _, entry in ipairs(gone) do
      local a = string.find(entry, '|', 1, true)
      local b = a and string.find(entry, '|', a + 1, true)
      if b and b < #entry then
        local name = string.sub(entry, b + 1)
        redis.call('PUBLISH', ARGV[2],
          'sb1p ' .. count .. ' leave ' .. string.sub(entry, 1, a - 1) .. ' ' .. #name .. ' 0 0 ' .. name)
        names[#names + 1] = name
      end
    end
    return names
    """)

  /// Read: the room's epoch and last id (creating the meta hash with a fresh epoch when it
  /// is missing, and dropping a stream left from a lost epoch), and kept messages.
  ///
  /// `KEYS`: meta, log. `ARGV`: a fresh epoch, mode (`after` or `newest`), id, count, the
  /// epoch the node knows and the highest id it saw in it (``lostWrites``), and for a
  /// re-sync the id of the newest message the node delivered in that epoch with the SHA-1
  /// of its body (``replacedWrite``; `0` and empty for none), and a byte budget (`0`: none).
  /// `after`: up to count entries with ids above id, oldest first — within the budget's
  /// bytes of bodies, and the entry that crosses it; `newest`: the newest
  /// count entries, newest first. Returns `{epoch, last, entries, lost, why}` (`lost` as for
  /// ``publish``; `why` is `behind`, `missing` or `differs` when `lost` is set, else empty).
  static let read = RedisScript(
    """
    \(lostWrites(epoch: "ARGV[5]", seen: "ARGV[6]", fresh: "ARGV[1]"))
    \(replacedWrite(epoch: "ARGV[5]", id: "ARGV[7]", digest: "ARGV[8]", fresh: "ARGV[1]"))
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
        -- A byte budget (ARGV[9]): the entries up to and including the first that crosses it.
        local budget = tonumber(ARGV[9] or '0') or 0
        if budget > 0 then
          local total = 0
          for i = 1, #entries do
            total = total + string.len(entries[i][2][2] or '')
            if total > budget then
              for j = #entries, i + 1, -1 do entries[j] = nil end
              break
            end
          end
        end
      else
        entries = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', count)
      end
    end
    return {meta[1], tonumber(meta[2] or '0'), entries, lost, why}
    """)

  /// The check both ``publish`` and ``read`` start with: a room whose meta hash still holds
  /// the epoch the node knows, but whose last id is below the highest id the node saw in
  /// it, lost acknowledged writes (a failover to a replica that was behind). Its ids would
  /// be handed out again for other messages, so the room starts a new epoch `fresh` (the
  /// stream dropped) — in the same atomic step, so of several nodes noticing at once only
  /// the first changes it: the others no longer find the epoch they compare with. Leaves
  /// the room's current epoch (or `false` when it has no meta hash) in `epoch`, the lost
  /// last id (or -1) in `lost` and `behind` (or empty) in `why`. `KEYS[1]` is the meta
  /// hash, `KEYS[2]` the stream.
  private static func lostWrites(epoch known: String, seen: String, fresh: String) -> String {
    """
    local epoch = redis.call('HGET', KEYS[1], 'epoch')
      local lost = -1
      local why = ''
      if epoch and epoch == \(known) then
        local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
        if last < tonumber(\(seen)) then
          lost = last
          why = 'behind'
          epoch = \(fresh)
          redis.call('DEL', KEYS[2])
          redis.call('HSET', KEYS[1], 'epoch', epoch, 'last', 0)
        end
      end
    """
  }

  /// The check a re-sync adds to ``lostWrites`` (in ``read``, and in ``publish`` until a
  /// script of the room answered after a reconnect): the node passes the id of the newest
  /// message it delivered in the epoch it knows and the SHA-1 of that message's body.
  /// When the room still holds that epoch, its stream entry at that id must be there with
  /// the same body. Another body means the id was handed out again — a failover to a replica
  /// that lacked it, then a publish by a node that had not seen it — and no entry, while the
  /// stream's first entry is below the id (or the stream is empty), means it was lost. A
  /// stream whose first entry is above the id was trimmed past it (`MAXLEN`): not a loss, and
  /// nothing to compare with. Either finding starts a new epoch `fresh` like ``lostWrites``
  /// (same atomic compare on the old epoch) and sets `lost` to the room's last id and `why`.
  private static func replacedWrite(epoch known: String, id: String, digest: String, fresh: String) -> String {
    """
    local check = tonumber(\(id))
      if lost < 0 and epoch and epoch == \(known) and check > 0 then
        local at = \(id) .. '-0'
        local found = redis.call('XRANGE', KEYS[2], at, at)
        if #found == 0 then
          local first = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
          if #first == 0 or tonumber(string.match(first[1][1], '^%d+')) < check then why = 'missing' end
        elseif redis.sha1hex(found[1][2][2] or '') ~= \(digest) then
          why = 'differs'
        end
        if why ~= '' then
          lost = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
          epoch = \(fresh)
          redis.call('DEL', KEYS[2])
          redis.call('HSET', KEYS[1], 'epoch', epoch, 'last', 0)
        end
      end
    """
  }

  /// ``publish`` with `SPUBLISH` for `PUBLISH`: on a cluster the room's channel is a shard
  /// channel in the room's slot, announced by the master that runs the script only.
  static let shardedPublish = sharded(publish)
  /// ``presence`` for a cluster (see ``shardedPublish``).
  static let shardedPresence = sharded(presence)
  /// ``expire`` for a cluster (see ``shardedPublish``).
  static let shardedExpire = sharded(expire)

  /// `script` announcing on shard channels: every `PUBLISH` call made an `SPUBLISH`.
  private static func sharded(_ script: RedisScript) -> RedisScript {
    RedisScript(script.source.replacing("redis.call('PUBLISH',", with: "redis.call('SPUBLISH',"))
  }
}
