import RelayCore

/// The `apns-push-type` header's values and the apns-topic suffix each one requires.
///
/// Source: Apple, "Sending notification requests to APNs" (apns-push-type, apns-topic).
public enum PushType: String, Sendable, Codable, ListedCases {
    case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets,
        controls

    /// What the apns-topic must end with for this push type ("" when the bare bundle id is used).
    public var topicSuffix: String {
        switch self {
        case .alert, .background, .mdm: ""
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .location: ".location-query"
        case .liveactivity: ".push-type.liveactivity"
        case .pushtotalk: ".voip-ptt"
        case .widgets: ".push-type.widgets"
        case .controls: ".push-type.controls"
        }
    }

    /// The largest payload APNs accepts for this push type, in bytes of the serialized body:
    /// 5120 for VoIP, 4096 otherwise. Source: Apple, "Generating a remote notification".
    public var maxPayloadBytes: Int { self == .voip ? 5120 : 4096 }

    /// The priorities APNs accepts with this push type. Background pushes must use 5
    /// (Apple, "Sending notification requests to APNs", apns-priority).
    public func allows(_ priority: Priority) -> Bool {
        self == .background ? priority == .conserve : true
    }
}

/// The `apns-priority` header: 10 sends at once, 5 conserves power, 1 prioritizes power over everything.
public enum Priority: Int, Sendable, Codable, CaseIterable {
    case immediate = 10
    case conserve = 5
    case low = 1
}
