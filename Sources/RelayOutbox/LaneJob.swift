import RelayCore

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
