import RelayCore

/// The pace asked of a request still arriving: after a grace period from the end of its headers, its body
/// must keep up with ``bytesPerSecond`` (``HTTPServerConfiguration/minBodyBytesPerSecond``). A body that
/// falls behind is dropped long before its body deadline, so a client trickling a byte at a time holds a
/// connection for seconds, not for the whole deadline. The rule is mod_reqtimeout's `MinRate`: each
/// `bytesPerSecond` bytes received buy a second more.
struct BodyPace: Sendable, Equatable {
    /// Least average rate, in bytes a second, once the grace is over.
    var bytesPerSecond: Int
    /// Time from the end of the headers before the rate counts.
    var grace: Duration

    /// Bytes a body must have delivered `elapsed` after its headers' end (0 during the grace).
    func required(after elapsed: Duration) -> Int {
        let counted = (elapsed - grace).timeInterval
        guard counted > 0 else { return 0 }
        return Int(min(counted * Double(bytesPerSecond), Double(Int.max / 2)))
    }

    /// Whether `bytes` received `elapsed` after the headers' end is slower than asked.
    func isBehind(bytes: Int, after elapsed: Duration) -> Bool { bytes < required(after: elapsed) }
}
