/// Numbers of deliveries by ``DeliveryStatus``.
public struct DeliveryCounts: Sendable, Codable, Equatable {
    public var pending: Int
    public var sent: Int
    public var failed: Int
    public var retired: Int
    public var cancelled: Int

    public init(pending: Int = 0, sent: Int = 0, failed: Int = 0, retired: Int = 0, cancelled: Int = 0) {
        self.pending = pending
        self.sent = sent
        self.failed = failed
        self.retired = retired
        self.cancelled = cancelled
    }

    /// All deliveries.
    public var total: Int { pending + sent + failed + retired + cancelled }

    /// The count for one status.
    public subscript(status: DeliveryStatus) -> Int {
        get {
            switch status {
            case .pending: pending
            case .sent: sent
            case .failed: failed
            case .retired: retired
            case .cancelled: cancelled
            }
        }
        set {
            switch status {
            case .pending: pending = newValue
            case .sent: sent = newValue
            case .failed: failed = newValue
            case .retired: retired = newValue
            case .cancelled: cancelled = newValue
            }
        }
    }
}
