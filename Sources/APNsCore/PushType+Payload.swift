extension PushType {
    /// The `aps` keys that make a push visible to the user: an alert, a sound or a badge.
    public static let userVisibleKeys = ["alert", "sound", "badge"]

    /// What APNs refuses in a payload's `aps` sent with this push type at `priority`, nil when nothing:
    /// - a background push that alerts, sounds or badges: 400 InvalidPushType (the push type must match the
    ///   payload; a background push "must not include the alert, badge, or sound keys");
    /// - priority 10 for a push whose `aps` only wakes the app (`content-available` without alert, sound or
    ///   badge): 400 BadPriority ("it is an error to use priority 10 for a notification that contains only
    ///   the content-available key").
    ///
    /// Source: Apple, "Sending notification requests to APNs" (apns-push-type, apns-priority) and "Pushing
    /// background updates to your App".
    /// - Parameter aps: the payload's `aps` object as JSONSerialization reads it; nil when it has none.
    public func payloadRefusal(priority: Priority, aps: [String: Any]?) -> APNsReason? {
        let visible = Self.userVisibleKeys.contains { aps?[$0] != nil }
        if self == .background && visible { return .invalidPushType }
        let wakesOnly = !visible && (aps?["content-available"] as? Int) == 1
        if priority == .immediate && wakesOnly { return .badPriority }
        return nil
    }
}
