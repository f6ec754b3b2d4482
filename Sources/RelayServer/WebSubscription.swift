import Foundation
import RelayCore
import RelayCrypto
import RelayHTTP
import WebPushCore

/// `subscription` of a web device's `POST /v1/devices` body: a browser's `PushSubscription.toJSON()`
/// (`{"endpoint", "expirationTime": null | number, "keys": {"p256dh", "auth"}}`), read by WebPushCore's
/// ``WebPushCore/WebPushSubscription`` and turned into the device's token by ``token(settings:)``.
struct WebSubscription: Decodable {
    var subscription: WebPushSubscription

    /// - Throws: ``HTTPError`` 400 `invalid_subscription` naming the field that is missing or of the wrong type
    ///   (`subscription.keys.auth is required`); values are never quoted.
    init(from decoder: any Decoder) throws {
        do { subscription = try WebPushSubscription(from: decoder) } catch let error as DecodingError {
            var refusal = HTTPRequest.httpError(for: error)
            refusal.code = Self.invalidCode
            throw refusal
        }
    }

    /// The error code of every refused subscription.
    static let invalidCode = "invalid_subscription"

    /// The device's token: the identity WebPushCore derives from the endpoint and the subscription's canonical
    /// JSON (`{"endpoint", "keys": {"auth", "p256dh"}}`, keys sorted, keys in base64url without padding),
    /// which is what the store keeps and the transport sends to. The endpoint must be https; plain http only
    /// at the origin of the app's mock push service (`apps[].webPush.mock`).
    /// - Throws: ``HTTPError`` 400 `invalid_subscription` saying which field is wrong (WebPushCore's message,
    ///   which never holds a key or the endpoint).
    func token(settings: Configuration.WebPush) throws(HTTPError) -> PushToken {
        let validated: ValidatedSubscription
        do { validated = try subscription.validated(allowingHTTP: isAtMock(settings.mock)) } catch {
            throw .badRequest(code: Self.invalidCode, message: "subscription.\(error.message)")
        }
        let stored = Stored(
            endpoint: validated.endpoint.text,
            keys: .init(
                p256dh: validated.keys.p256dh.base64URLEncodedString(),
                auth: validated.keys.auth.base64URLEncodedString()
            )
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let json = String(decoding: try encoder.encode(stored), as: UTF8.self)
            return .web(try WebPushToken(identity: validated.deviceToken, subscription: json))
        } catch {
            // Two strings and an identity WebPushCore made always encode and parse.
            throw .internal()
        }
    }

    /// The token of the device this subscription made when its endpoint's spelling (as sent now) was kept
    /// as given (``WebPushCore/PushEndpoint/formerDeviceToken(given:)``); nil when it is the token now.
    /// Registering deletes that device, so one subscription is never two devices.
    func formerToken() -> PushToken? {
        guard let endpoint = try? PushEndpoint(validating: subscription.endpoint, allowingHTTP: true),
            let former = endpoint.formerDeviceToken(given: subscription.endpoint)
        else { return nil }
        return (try? WebPushToken(parsing: former)).map(PushToken.web)
    }

    /// Whether the endpoint is at the origin of the app's mock push service, where plain http is taken.
    private func isAtMock(_ mock: Configuration.MockEndpoint?) -> Bool {
        guard let mock, let mockOrigin = try? PushEndpoint(validating: mock.baseURL, allowingHTTP: true).origin else {
            return false
        }
        return (try? PushEndpoint(validating: subscription.endpoint, allowingHTTP: true).origin) == mockOrigin
    }

    /// The origin of a stored subscription's endpoint (`https://fcm.googleapis.com`), what the API shows of
    /// it; nil when the JSON is not a subscription.
    static func endpointOrigin(stored json: String) -> String? {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: Data(json.utf8)) else { return nil }
        return try? PushEndpoint(validating: stored.endpoint, allowingHTTP: true).origin
    }

    /// The subscription as it is stored: no expiry (the relay learns of an ended subscription from its push
    /// service's 404 or 410).
    private struct Stored: Codable {
        var endpoint: String
        var keys: WebPushSubscription.Keys
    }
}
