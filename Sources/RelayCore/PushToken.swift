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

    /// The part of its push service the token is reached through when the service has several (APNs: the
    /// environment it was registered for); nil for a service with one, or when not known.
    public var scope: String? {
        switch self {
        case .apns(let token): token.environment?.rawValue
        case .fcm, .web: nil
        }
    }

    /// The send-as identities (``NotificationContent/sendAs``) its push service refused this token for:
    /// nothing more is sent to it as them (APNs: the topics of ``DeviceToken/unlinkedTopics``). Empty for a
    /// service that refuses none, and when not known.
    public var unlinked: [String] {
        switch self {
        case .apns(let token): token.unlinkedTopics
        case .fcm, .web: []
        }
    }

    /// Whether its push service says since when a dead token is invalid (APNs' 410 `timestamp`), so that time
    /// is reported (as `apnsTimestamp`); for the others it is only the time of the send that found the token
    /// dead, which is not.
    public var reportsInvalidSince: Bool {
        switch self {
        case .apns: true
        case .fcm, .web: false
        }
    }

    /// The token as registered in `scope`, one of ``scopes(of:)`` of its platform (APNs: an environment's
    /// name; nil leaves it without one). A token of a service with one scope stays as it is.
    /// - Throws: ``ParseError`` when `scope` is none of the platform's.
    public func registered(scope: String?) throws(ParseError) -> PushToken {
        switch self {
        case .apns(let token):
            do { return .apns(try token.registered(scope: scope)) } catch {
                throw ParseError(description: error.description)
            }
        case .fcm, .web:
            return self
        }
    }

    /// Every ``scope`` a token of `platform` can have: `[nil]` for a service with one.
    public static func scopes(of platform: Platform) -> [String?] {
        switch platform {
        case .ios: DeviceToken.scopes
        case .android, .web: [nil]
        }
    }

    /// The stored form of ``scope`` (the `environment` column): the token's own (APNs: its environment,
    /// `production` when not known), the column's filler ``storedWithoutScope`` for a service with one.
    public var storedScope: String {
        switch self {
        case .apns(let token): token.storedScope
        case .fcm, .web: Self.storedWithoutScope
        }
    }

    /// The `environment` column of a token whose service has one scope.
    public static let storedWithoutScope = "production"

    /// A token as it is stored: its ``value``, its platform, its ``address``, its ``storedScope`` and the
    /// identities it is ``unlinked`` from (kept only by a service that refuses tokens for them).
    /// - Throws: ``ParseError`` when the value is not a token of `platform`, a web token has no address, or
    ///   an APNs token's scope is not an environment.
    public init(
        stored value: String,
        platform: Platform,
        address: String?,
        scope: String?,
        unlinked: [String] = []
    ) throws(ParseError) {
        switch platform {
        case .ios:
            var token: DeviceToken
            do { token = try DeviceToken(parsing: value).registered(scope: scope) } catch {
                throw ParseError(description: error.description)
            }
            token.unlinkedTopics = unlinked
            self = .apns(token)
        case .android:
            try self.init(parsing: value, platform: platform)
        case .web:
            guard let address else { throw ParseError(description: "a web device token has no subscription") }
            do { self = .web(try WebPushToken(identity: value, subscription: address)) } catch {
                throw ParseError(description: error.description)
            }
        }
    }

    /// The last 8 characters: the only part of a token that may appear in logs and error messages.
    public var suffix: String { Self.suffix(of: value) }

    /// The part of a stored token's text that may be shown.
    public static func suffix(of value: String) -> String { String(value.suffix(8)) }

    /// Redacted: `…` and ``suffix``.
    public var description: String { "…" + suffix }
}
