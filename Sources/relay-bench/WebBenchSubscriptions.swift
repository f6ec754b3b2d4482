import Foundation
import RelayCore
import WebPushCore
import WebPushMock

/// Subscriptions of the bench's mock push service (`push-relay mock-webpush --subscriptions DIR`): made in
/// its subscriptions directory, where the serving mock finds each one's private key, as browsers that
/// subscribed at it. Distinct endpoints sharing ``keyPairs`` key pairs (``MockWebPushServer/newSubscriptions(
/// count:keyPairs:baseURL:)``), so 100,000 of them take seconds.
enum WebBenchSubscriptions {
    /// Key pairs shared by the subscriptions made at once.
    static let keyPairs = 256

    /// `count` new subscriptions under `url` (the mock's base URL), kept in `directory`.
    static func make(count: Int, url: String, directory: String) throws -> [WebPushSubscription] {
        let maker = MockWebPushServer(configuration: .init(subscriptionsDirectory: directory))
        return try maker.newSubscriptions(count: count, keyPairs: keyPairs, baseURL: url)
    }

    /// The subscriptions listed in the file `path` (one JSON object a line), made with ``make(count:url:
    /// directory:)`` and listed there first when the file does not exist: one set for every client-only run.
    static func list(at path: String, count: Int, url: String, directory: String) throws -> [WebPushSubscription] {
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            let listed = try text.split(separator: "\n").map {
                try JSONDecoder().decode(WebPushSubscription.self, from: Data($0.utf8))
            }
            if listed.count >= count { return listed }
        }
        let made = try make(count: count, url: url, directory: directory)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let lines = try made.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return made
    }

    /// A web device's token for `subscription`, as the relay stores a registered one: its identity and the
    /// subscription's JSON.
    static func token(_ subscription: WebPushSubscription) throws -> PushToken {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(subscription), as: UTF8.self)
        return .web(
            try WebPushToken(identity: PushEndpoint.deviceToken(endpoint: subscription.endpoint), subscription: json)
        )
    }
}
