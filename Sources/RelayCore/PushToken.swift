/// A device's address at its push service: an APNs device token (iOS), an FCM registration token
/// (Android) or a browser's push subscription (web), each validated by its own rules.
public enum PushToken: Hashable, Sendable, CustomStringConvertible {
    case apns(DeviceToken)
    case fcm(FCMRegistrationToken)
    case web(WebPushToken)

    /// Why a string is not a token of the platform it was given for.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Reads a token as the app sent it for `platform`: APNs tokens are normalized (``DeviceToken``), FCM
    /// tokens taken exactly (``FCMRegistrationToken``), a web token is its identity only (``WebPushToken``).
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
        case .web:
            do { self = .web(try WebPushToken(parsing: raw)) } catch {
                throw ParseError(description: error.description)
            }
        }
    }

    public var platform: Platform {
        switch self {
        case .apns: .ios
        case .fcm: .android
        case .web: .web
        }
    }

    /// The full token as it is stored and sent. Only ``suffix`` may be logged or shown.
    public var value: String {
        switch self {
        case .apns(let token): token.hex
        case .fcm(let token): token.value
        case .web(let token): token.identity
        }
    }

    /// What the device is reached at when it is more than ``value``, stored beside it: a web subscription's
    /// JSON. Never logged or shown.
    public var address: String? {
        switch self {
        case .apns, .fcm: nil
        case .web(let token): token.subscription
        }
    }

    /// A token as it is stored: its ``value``, its platform and its ``address``.
    /// - Throws: ``ParseError`` when the value is not a token of `platform`, or a web token has no address.
    public init(stored value: String, platform: Platform, address: String?) throws(ParseError) {
        guard platform == .web else {
            try self.init(parsing: value, platform: platform)
            return
        }
        guard let address else { throw ParseError(description: "a web device token has no subscription") }
        do { self = .web(try WebPushToken(identity: value, subscription: address)) } catch {
            throw ParseError(description: error.description)
        }
    }

    /// The last 8 characters: the only part of a token that may appear in logs and error messages.
    public var suffix: String { Self.suffix(of: value) }

    /// The part of a stored token's text that may be shown.
    public static func suffix(of value: String) -> String { String(value.suffix(8)) }

    /// Redacted: `…` and ``suffix``.
    public var description: String { "…" + suffix }
}
