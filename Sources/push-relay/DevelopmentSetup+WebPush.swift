import Foundation
import RelayCLI
import RelayCore
import WebPushCore
import WebPushMock

extension DevelopmentSetup {
    /// The file, in the data directory, of the VAPID key the development apps sign with. Kept: subscriptions
    /// made for its public key stop working with another.
    static let vapidKeyFile = "dev-vapid-key.pem"
    /// The folder, in the data directory, where the in-process mock push service keeps the subscriptions it
    /// makes, so `push-relay mock-webpush --new-subscription --subscriptions <it>` makes one it reads.
    static let webPushSubscriptions = "webpush-subscriptions"
    /// The file, in the data directory, of the port the in-process mock push service last listened on. Every
    /// subscription it made names that port in its endpoint, and the relay sends to its app's mock only: the
    /// next start takes the same port when it is free, so those subscriptions are still reached.
    static let webPushPortFile = "dev-webpush-port"

    /// Starts one in-process mock push service when some app is to use it, and points those apps at it with a
    /// development VAPID key. Returns the mock (nil when none was needed).
    ///
    /// An app uses it when its `webPush` settings name no VAPID key, or when it has neither `webPush`
    /// settings nor APNs credentials (a development app). An app with APNs credentials and no `webPush` has
    /// no web devices: their registrations are refused rather than sent to a mock.
    /// - Parameter ports: the relay's own listeners' ports, which the mock never takes (an operator may give
    ///   `serve --port` the port the mock last had).
    func attachMockWebPush(to apps: inout [Configuration.App], avoiding ports: Set<Int>) throws -> MockWebPushServer? {
        let needing = apps.indices.filter { apps[$0].developmentMocks.contains(.web) }
        guard !needing.isEmpty else { return nil }
        let keyPath = try developmentVAPIDKey()
        let mock = try startMockWebPush(avoiding: ports)
        let endpoint = Self.mockEndpoint(port: mock.port)
        for index in needing {
            var webPush = apps[index].webPush ?? Configuration.WebPush()
            webPush.vapidKeyFile = keyPath
            webPush.subject = webPush.subject ?? Configuration.WebPush.developmentSubject
            webPush.mock = endpoint
            apps[index].webPush = webPush
        }
        logger.notice(
            "in-process mock Web Push started",
            [
                "mock.url": endpoint.baseURL, "subscriptions": dataDirectory + "/" + Self.webPushSubscriptions,
                "apps": needing.map { apps[$0].id }.joined(separator: ","),
            ]
        )
        return mock
    }

    /// The in-process mock push service, started on the port of ``webPushPortFile`` when that is free and not
    /// one of `ports`, else on any (with a warning: the subscriptions made before are not reached); the port it
    /// took is kept there.
    private func startMockWebPush(avoiding ports: Set<Int>) throws -> MockWebPushServer {
        func mock(port: Int) -> MockWebPushServer {
            MockWebPushServer(
                configuration: MockWebPushConfiguration(
                    port: port,
                    tls: Self.mockTLS,
                    subscriptionsDirectory: dataDirectory + "/" + Self.webPushSubscriptions,
                    recordInMemory: false,
                    onAccepted: { ConsoleLines.shared.say(MockWebPushCommand.acceptedLine($0)) }
                )
            )
        }
        let kept = (try? String(contentsOfFile: dataDirectory + "/" + Self.webPushPortFile, encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            .flatMap { (1...65_535).contains($0) ? $0 : nil }
        if let kept, ports.contains(kept) {
            logger.warning(
                "the in-process mock Web Push's last port is the relay's own now: subscriptions made for it are not "
                    + "reached",
                ["port": kept]
            )
        } else if let kept {
            let server = mock(port: kept)
            do {
                try server.start()
                return server
            } catch {
                logger.warning(
                    "the in-process mock Web Push's last port is taken: subscriptions made for it are not reached",
                    ["port": kept, "error": "\(error)"]
                )
            }
        }
        let server = mock(port: 0)
        try server.start()
        try writeSecretFile(Self.webPushPortFile, Data("\(server.port)\n".utf8))
        return server
    }

    /// The development VAPID key's path, made on first use.
    private func developmentVAPIDKey() throws -> String {
        let path = dataDirectory + "/" + Self.vapidKeyFile
        if let pem = try? String(contentsOfFile: path, encoding: .utf8), (try? VAPIDKey(privateKeyPEM: pem)) != nil {
            return path
        }
        return try writeSecretFile(Self.vapidKeyFile, Data(try VAPIDKey.generate().privateKeyPEM.utf8))
    }
}
