import SwitchboardChat
import SwitchboardIO

/// The hub runs each shard's deliveries on the shard's event loop.
extension EventLoop: ShardExecutor {}
