import Foundation

/// Which apps relays serve, as they mark it in the periodic jobs' table: every relay claims the job
/// ``job(_:)`` of each app of its configuration every ``markInterval`` (one claim succeeds per interval,
/// whichever relay makes it), so an app whose job was claimed within ``servedWithin`` has a relay serving it.
/// `push-relay storage end-pending` reads it, to end no work of an app a relay still serves.
public enum ServedApps {
    /// How often an app's mark is renewed.
    public static let markInterval: Duration = .seconds(15)
    /// How long after its last mark an app counts as served: three intervals, so a relay's pause or a slow
    /// turn does not make it look unserved.
    public static let servedWithin: Duration = markInterval * 3

    /// The periodic job whose claims mark `appId` served.
    public static func job(_ appId: String) -> String { "serves:\(appId)" }

    /// Whether an app whose mark was last made at `lastMark` counts as served at `now`.
    public static func isServed(lastMark: Date?, now: Date) -> Bool {
        guard let lastMark else { return false }
        return now.timeIntervalSince(lastMark) < servedWithin.timeInterval
    }
}
