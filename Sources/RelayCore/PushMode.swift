/// How an app's messages reach one platform's devices (`apps[].apns.mode`, `apps[].fcm.mode`).
///
/// - `alert`: the push shows the message (title, body, sound).
/// - `wake`: a silent push that wakes the app with the Ditto keys only, so Ditto syncs and the DittoChat
///   SDK shows its own banner (iOS: a background push, Apple, "Pushing background updates to your App";
///   Android: a data-only message). Only a message with a message id can wake, and each device only within
///   its hourly budget (``WakePolicy``); any other delivery is an alert.
public enum PushMode: String, Sendable, Codable, ListedCases {
    case alert, wake
}
