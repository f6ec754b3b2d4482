/// A device's address at its push service: an APNs device token (iOS) or an FCM registration token
/// (Android), each validated by its own rules.
public enum PushToken: Hashable, Sendable, CustomStringConvertible {
    case apns(DeviceToken)
    case fcm(FCMRegistrationToken)

    /// Why a string is not a token of the platform it was given for.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Reads a token as the app sent it for `platform`: APNs tokens are normalized (``DeviceToken``), FCM
    /// tokens taken exactly (``FCMRegistrationToken``).
    /// - Throws: ``ParseError`` with the platform's own message.
    public init(parsing raw: String, platform: Platform) throws(ParseError) {
        switch platform {
        case .ios:
            do { self = .apns(try DeviceToken(parsing: raw)) } catch {
                throw ParseError(description: error.description)
            }
        case .android:
            do { self = .fcm(try FCMRegistrationToken(parsing: raw)) } catch {
                throw ParseError(description: error.description)
            }
        }
    }

    public var platform: Platform {
        switch self {
        case .apns: .ios
        case .fcm: .android
        }
    }

    /// The full token as it is stored and sent. Only ``suffix`` may be logged or shown.
    public var value: String {
        switch self {
        case .apns(let token): token.hex
        case .fcm(let token): token.value
        }
    }

    /// The last 8 characters: the only part of a token that may appear in logs and error messages.
    public var suffix: String { Self.suffix(of: value) }

    /// The part of a stored token's text that may be shown.
    public static func suffix(of value: String) -> String { String(value.suffix(8)) }

    /// Redacted: `…` and ``suffix``.
    public var description: String { "…" + suffix }
}
