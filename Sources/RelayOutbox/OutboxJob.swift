import RelayCore

/// A claimed piece of outbox work: a message's delivery to one device, or a badge update of one device.
/// Both wait in the lane of their app and platform (``DeliveryLanes``), are started by the same sender and
/// recorded by the same flusher, each kind's result in its own store call.
enum OutboxJob: Sendable, LaneJob {
    case delivery(DeliveryJob)
    case badgeUpdate(BadgeUpdateJob)

    /// Which store row a result is for.
    enum ID: Sendable, Hashable {
        case delivery(Int64)
        case badgeUpdate(Int64)
    }

    var appId: String {
        switch self {
        case .delivery(let job): job.appId
        case .badgeUpdate(let update): update.appId
        }
    }

    var platform: Platform {
        switch self {
        case .delivery(let job): job.platform
        case .badgeUpdate(let update): update.token.platform
        }
    }

    var id: ID {
        switch self {
        case .delivery(let job): .delivery(job.deliveryId)
        case .badgeUpdate(let update): .badgeUpdate(update.updateId)
        }
    }
}
