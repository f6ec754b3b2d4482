/// Which of an app's deliveries ask to wake the app instead of alerting (``PushMode/wake``), and how many
/// wake pushes a device takes in a UTC clock hour (`apps[].wakeBudgetPerHour`).
///
/// A delivery asks to wake when its device's platform is in wake mode and its message has a message id (a
/// Ditto-stream message, or a webhook that names `messageId`): the app needs the id to find the message
/// after Ditto synced. Whether it does wake is the store's decision at claim, by the device's budget.
public struct WakePolicy: Sendable, Equatable {
    /// The platforms in wake mode; never ``Platform/web``: a browser must show something for every push it
    /// takes, so a web device is never woken (issue 24's decisions).
    public private(set) var platforms: Set<Platform>
    /// Wake pushes a device takes in a UTC clock hour; beyond them its deliveries are alerts.
    public var budgetPerHour: Int

    /// A policy for `platforms`, less ``Platform/web``.
    public init(platforms: Set<Platform>, budgetPerHour: Int) {
        self.platforms = platforms.subtracting([.web])
        self.budgetPerHour = budgetPerHour
    }

    /// The app's policy; nil when neither its APNs nor its FCM settings are in wake mode.
    public init?(app: Configuration.App) {
        var platforms: Set<Platform> = []
        if app.apns.mode == .wake { platforms.insert(.ios) }
        if app.fcm?.mode == .wake { platforms.insert(.android) }
        guard !platforms.isEmpty else { return nil }
        self.init(platforms: platforms, budgetPerHour: app.wakeBudgetPerHour)
    }

    /// Whether `job` asks to wake: its platform is in wake mode and its message has a message id (a removal
    /// is no message: it is always a background push of its own).
    public func asksToWake(_ job: DeliveryJob) -> Bool {
        platforms.contains(job.token.platform) && job.content.message.messageId != nil
            && job.content.message.removedMessageId == nil
    }
}
