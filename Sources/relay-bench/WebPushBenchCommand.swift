import Foundation
import RelayCLI
import RelayCore
import RelayWebPush
import WebPushCore

/// `relay-bench web`: the client-only reference for Web Push (``ClientBench``) through one ``WebPushClient``
/// signing with the VAPID key `--vapid-key`, its mock push service at `--url` (the one `push-relay
/// mock-webpush` serves; `--ca` verifies it). Each send is the message the relay renders for the fan-out's
/// webhook (``WebPushCore/WebPushPayload`` of ``BenchDefaults/chatMessage(id:)``, the app's TTL, the Topic of
/// its message id), encrypted for its subscription: all to one subscription or, with `--distinct-tokens`,
/// each to another of ``ClientBench/distinctTokenCount``, as a fan-out sends. The subscriptions are the
/// mock's (``WebBenchSubscriptions``), listed in `--list`.
enum WebPushBenchCommand {
    static let usage = """
        relay-bench web --url https://127.0.0.1:PORT --subscriptions DIR --list FILE --vapid-key FILE [--ca FILE]
                        \(ClientBench.usage)
        """

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let url = try arguments.required("url")
        let bench = try ClientBench(arguments)
        // Each Web Push request is encrypted for its subscription: there is no bare libcurl reference to write.
        guard bench.requestsOut == nil else { throw Arguments.Problem(description: "web has no --requests-out") }
        let subscriptions = try WebBenchSubscriptions.list(
            at: try arguments.required("list"),
            count: ClientBench.distinctTokenCount,
            url: url,
            directory: try arguments.required("subscriptions")
        )
        let targets = try bench.tokens(single: subscriptions[0]) { subscriptions[$0] }
            .map { try $0.validated(allowingHTTP: true) }
        var configuration = try WebPushClientConfiguration(
            vapidKeyPEM: try String(contentsOfFile: try arguments.required("vapid-key"), encoding: .utf8),
            subject: BenchDefaults.webPushSubject
        )
        configuration.mock = .init(baseURL: url, caFile: arguments.value("ca", default: BenchDefaults.caFile))
        // The relay's TTL for a fresh message: the app's default ttlSeconds.
        configuration.ttlSeconds =
            Configuration.App(id: SeedCommand.appId, topic: BenchDefaults.topic, apiKeySHA256: []).ttlSeconds
        configuration.maxInFlight = bench.maxInFlight
        // One origin here, the mock's: let it take every request in flight, as the other clients do.
        configuration.maxInFlightPerOrigin = bench.maxInFlight
        let client = try WebPushClient(configuration: configuration)
        let message = BenchDefaults.chatMessage(id: UUID().lowercasedString)
        let plaintext = try WebPushPayload(shown: message.shown, openURL: nil).encoded()
        let topic = message.messageId.map(Topic.init(messageId:))
        let ttl = configuration.ttlSeconds
        @Sendable func push(_ index: Int) -> WebPushMessage {
            WebPushMessage(
                subscription: targets[index % targets.count],
                plaintext: plaintext,
                ttlSeconds: ttl,
                topic: topic
            )
        }

        // Warm-up: connects and signs the VAPID token.
        _ = try await client.send(push(0))

        let report = await bench.measure { issued in
            (try? await client.send(push(issued)))?.isAccepted == true
        }
        await client.shutdown()
        return try report.print()
    }
}
