/// Numbers of deliveries by ``DeliveryStatus``.
public struct DeliveryCounts: Sendable, Codable, Equatable {
    public var pending: Int
    public var sent: Int
    public var failed: Int
    public var retired: Int

    public init(pending: Int = 0, sent: Int = 0, failed: Int = 0, retired: Int = 0) {
        self.pending = pending
        self.sent = sent
        self.failed = failed
        self.retired = retired
    }

    /// All deliveries.
    public var total: Int { pending + sent + failed + retired }

    /// The count for one status.
    public subscript(status: DeliveryStatus) -> Int {
        get {
            switch status {
            case .pending: pending
            case .sent: sent
            case .failed: failed
            case .retired: retired
            }
        }
        set {
            switch status {
            case .pending: pending = newValue
            case .sent: sent = newValue
            case .failed: failed = newValue
            case .retired: retired = newValue
            }
        }
    }
}
