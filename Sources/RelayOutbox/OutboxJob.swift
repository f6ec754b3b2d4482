import RelayCore

/// A claimed piece of outbox work: a message's delivery to one device, or a badge update of one device.
/// Both wait in the lane of their app and platform (``DeliveryLanes``), are sent by the same workers and
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
        case .delivery(let job): job.token.platform
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

/// What ``DeliveryLanes`` needs of a job: the app and the platform whose lane it waits in.
protocol LaneJob: Sendable {
    var appId: String { get }
    /// The platform of the device it is for.
    var platform: Platform { get }
}

extension LaneJob {
    /// The lane the job waits in.
    var laneKey: LaneKey { LaneKey(appId: appId, platform: platform) }
}

/// A lane of ``DeliveryLanes``: one app's jobs for the devices of one platform, so that one push service's
/// trouble (or a web push origin that answers slowly on purpose) holds up no other platform's pushes.
struct LaneKey: Hashable, Sendable {
    var appId: String
    var platform: Platform
}

extension DeliveryJob: LaneJob {
    var platform: Platform { token.platform }
}
