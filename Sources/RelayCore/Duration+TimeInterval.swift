import Foundation

extension Duration {
    /// The duration in SECONDS, as Foundation counts time (`TimeInterval`).
    public var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
