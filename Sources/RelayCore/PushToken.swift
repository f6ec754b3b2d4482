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

    /// The token as registered for APNs `environment`: an APNs token with it, any other token as it is.
    public func registered(in environment: APNsEnvironment) -> PushToken {
        guard case .apns(var token) = self else { return self }
        token.environment = environment
        return .apns(token)
    }

    /// Every ``scope`` a token of `platform` can have: `[nil]` for a service with one.
    public static func scopes(of platform: Platform) -> [String?] {
        switch platform {
        case .ios: APNsEnvironment.allCases.map(\.rawValue)
        case .android, .web: [nil]
        }
    }

    /// The stored form of ``scope`` (the `environment` column): APNs' environment, `production` for a token
    /// of another platform or one whose environment is not known.
    public var storedScope: String { scope ?? APNsEnvironment.production.rawValue }

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
            var environment: APNsEnvironment?
            if let scope {
                guard let known = APNsEnvironment(rawValue: scope) else {
                    throw ParseError(description: "stored APNs environment '\(scope)' is unknown")
                }
                environment = known
            }
            var token: DeviceToken
            do { token = try DeviceToken(parsing: value, environment: environment) } catch {
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
