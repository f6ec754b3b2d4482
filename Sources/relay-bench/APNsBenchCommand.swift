import APNsCore
import Foundation
import RelayAPNs
import RelayCLI
import RelayCore
import RelayCrypto
import RelayCurl

/// `relay-bench apns`: the client-only reference for APNs (``ClientBench``) through one ``APNsClient``. All
/// to one device token (as h2load and the C loop send), or with `--distinct-tokens` each to another one, as a
/// fan-out sends.
enum APNsBenchCommand {
    static let usage = """
        relay-bench apns --url https://127.0.0.1:PORT [--ca FILE] [--key FILE.p8] [--key-id KID] [--team TEAM]
                         \(ClientBench.usage)
        """

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let url = try arguments.required("url")
        let bench = try ClientBench(arguments)
        var configuration = APNsClientConfiguration(
            endpoint: .custom(baseURL: url, caFile: arguments.value("ca", default: BenchDefaults.caFile)),
            authentication: .token(
                key: arguments.value("key", default: BenchDefaults.keyFile),
                keyId: arguments.value("key-id", default: BenchDefaults.keyId),
                teamId: arguments.value("team", default: BenchDefaults.teamId)
            )
        )
        configuration.maxInFlight = bench.maxInFlight
        let client = try APNsClient(configuration: configuration)
        let token = try DeviceToken(parsing: BenchDefaults.deviceToken)
        let tokens = try bench.tokens(single: token, SeedCommand.token)
        let payload = Data(BenchDefaults.body.utf8)
        let collapseId = ChatMessage.notificationIdentifier(messageId: UUID().uuidString)
        let notificationId = UUID()

        // The headers the relay sends for a chat message: its own apns-id, derived as the relay derives it (no
        // random UUID, which reads /dev/urandom each time on Linux), an expiration and the message's
        // notification identifier as collapse id, so the fan-out is compared with the same work.
        let notification = { @Sendable (issued: Int) in
            APNsNotification(
                deviceToken: tokens[issued % tokens.count],
                topic: BenchDefaults.topic,
                expiration: Int(Date().timeIntervalSince1970) + 86_400,
                collapseId: collapseId,
                apnsId: PushIdentifier.forDelivery(Int64(issued), of: notificationId),
                payload: payload
            )
        }
        if let path = bench.requestsOut {
            return try await bench.writeRequests(to: path) { try await client.request(for: notification($0)) }
        }

        // Warm-up: connects, proves the provider token (APNs allows one stream until then).
        _ = try await client.send(APNsNotification(deviceToken: token, topic: BenchDefaults.topic, payload: payload))

        let report = await bench.measure { issued in
            (try? await client.send(notification(issued)))?.status == 200
        }
        await client.shutdown()
        return try report.print()
    }
}
