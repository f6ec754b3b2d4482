import FCMCore
import Foundation
import RelayCLI
import RelayCore
import RelayCurl
import RelayFCM

/// `relay-bench fcm`: the client-only reference for FCM (``ClientBench``) through one ``FCMClient``
/// authorized by the service account `--service-account` (the one `push-relay mock-fcm
/// --new-service-account` writes). Each send is the message the relay renders for the fan-out's webhook
/// (``FCMCore/FCMMessage/init(token:shown:ttlSeconds:)`` of ``BenchDefaults/chatMessage(id:)``), to one seeded
/// registration token or, with `--distinct-tokens`, each to another one, as a fan-out sends; its body made
/// from one template (``FCMCore/FCMMessage/template()``), as the fan-out makes it.
enum FCMBenchCommand {
    static let usage = """
        relay-bench fcm --url https://127.0.0.1:PORT --service-account FILE [--ca FILE]
                        \(ClientBench.usage)
        """

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let url = try arguments.required("url")
        let account = try FCMServiceAccount(contentsOfFile: try arguments.required("service-account"))
        let bench = try ClientBench(arguments)
        var configuration = FCMClientConfiguration(
            endpoint: .custom(baseURL: url, caFile: arguments.value("ca", default: BenchDefaults.caFile)),
            serviceAccount: account
        )
        configuration.maxInFlight = bench.maxInFlight
        let client = try FCMClient(configuration: configuration)
        let token = try SeedCommand.fcmToken(0)
        let tokens = try bench.tokens(single: token, SeedCommand.fcmToken)
        let shown = BenchDefaults.chatMessage(id: UUID().lowercasedString).shown
        // The relay's android.ttl for a fresh message: the app's default ttlSeconds.
        let ttl = Configuration.App(id: SeedCommand.appId, topic: BenchDefaults.topic, apiKeySHA256: []).ttlSeconds

        let message = { @Sendable (issued: Int) in
            FCMMessage(token: tokens[issued % tokens.count], shown: shown, ttlSeconds: ttl)
        }
        if let path = bench.requestsOut {
            return try await bench.writeRequests(to: path) { try await client.request(for: message($0)) }
        }

        // Warm-up: fetches the access token and connects.
        _ = try await client.send(FCMMessage(token: token, shown: shown, ttlSeconds: ttl))

        // Each body is the template's with the token put in, as the fan-out's transport makes it: the seeded
        // tokens share one length, so one template serves them all.
        let template = try message(0).template()
        let report = await bench.measure { issued in
            let sent = message(issued)
            guard let body = FCMMessage.encoded(token: sent.token, template: template) else { return false }
            return (try? await client.send(sent, body: body))?.status == 200
        }
        await client.shutdown()
        return try report.print()
    }
}
