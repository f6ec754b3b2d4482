import APNsMock
import Foundation
import RelayCLI
import RelayCore
import RelayCrypto

/// `push-relay mock-apns`: a mock APNs on HTTP/2 until SIGINT/SIGTERM, printing a line per accepted push.
enum MockAPNsCommand {
    static let help = """
        usage: push-relay mock-apns [options]
        \(MockListenArguments.help(defaultPort: 2197, column: 24))
          --client-ca FILE      accept client certificates signed by this CA (certificate auth)
          --key KID:TEAM:FILE   a provider-token key: Key ID, Team ID, public (or .p8) key PEM;
                                several separated by commas
          --no-auth             accept requests without provider token
          --topics A,B          accept only these bundle ids as apns-topic
          --environment ENV     sandbox (adds apns-unique-id) or production (default)
          --max-streams N       MAX_CONCURRENT_STREAMS once authenticated (default 1000)
          --record FILE         append every answered request as a JSON line
          --script FILE         faults to inject (see fixtures/mock-script.json)
          --quiet               no line per accepted or refused push
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(
            words,
            switches: MockListenArguments.switches.union(["help", "no-auth", "quiet"]),
            options: MockListenArguments.options.union([
                "client-ca", "key", "topics", "environment", "max-streams", "record", "script",
            ]),
            positional: 0
        )
        if arguments.flag("help") {
            say(help)
            return 0
        }
        let configuration = try configuration(from: arguments)
        let server = MockAPNsServer(configuration: configuration)
        // Caught from before the command says it is up (``Signals``).
        let signals = Signals()
        try server.start()
        let scheme = configuration.tls == nil ? "http" : "https"
        let auth =
            switch (configuration.authentication, configuration.providerKeys.count) {
            case (.disabled, _): "no auth"
            case (_, 0): "no key: every request is refused 403; pass --key KID:TEAM:FILE or --no-auth"
            case (_, let count): "\(count) key(s)"
            }
        ConsoleLines.shared.say("mock APNs listening on \(scheme)://\(configuration.host):\(server.port) (\(auth))")
        try await MockLifecycle.run("mock-apns", signals: signals) { server.stop() }
        ConsoleLines.shared.say("mock APNs stopped after \(server.answeredCount) request(s)")
        return 0
    }

    static func configuration(from arguments: Arguments) throws -> MockAPNsConfiguration {
        var configuration = MockAPNsConfiguration(
            host: MockListenArguments.host(from: arguments),
            port: try MockListenArguments.port(from: arguments, default: 2197),
            tls: try MockListenArguments.tls(from: arguments, clientCA: arguments.value("client-ca"))
        )
        if arguments.flag("no-auth") { configuration.authentication = .disabled }
        for spec in (arguments.value("key") ?? "").split(separator: ",") {
            let parts = spec.split(separator: ":", maxSplits: 2).map(String.init)
            guard parts.count == 3 else {
                throw Arguments.Problem(description: "--key takes KID:TEAM:FILE, got '\(spec)'")
            }
            let pem: String
            do { pem = try String(contentsOfFile: parts[2], encoding: .utf8) } catch {
                throw Arguments.Problem(description: "cannot read key file \(parts[2])")
            }
            configuration.providerKeys[parts[0]] = (teamId: parts[1], key: try ES256Key(publicKeyPEM: pem))
        }
        if let topics = arguments.value("topics") {
            configuration.allowedTopics = Set(topics.split(separator: ",").map(String.init))
        }
        if let environment = arguments.value("environment") {
            guard let value = APNsEnvironment(rawValue: environment) else {
                throw Arguments.Problem(description: "--environment must be sandbox or production")
            }
            configuration.environment = value
        }
        if let streams = try arguments.integer("max-streams") {
            guard streams > 0 else { throw Arguments.Problem(description: "--max-streams must be positive") }
            configuration.maxConcurrentStreams = streams
        }
        configuration.recordFile = arguments.value("record")
        configuration.recordInMemory = false
        if let script = arguments.value("script") {
            configuration.script = try MockScript(contentsOf: URL(fileURLWithPath: script))
        }
        if !arguments.flag("quiet") {
            configuration.onAccepted = { ConsoleLines.shared.say(acceptedLine($0)) }
            configuration.onRefused = { ConsoleLines.shared.say(refusedLine($0)) }
        }
        return configuration
    }

    /// `mock APNs refused status=403 reason=InvalidProviderToken apns-id=… token=…1a2b3c4d topic=…`: a
    /// request the mock answered otherwise than 200 (its checks, or its script), so a developer sees it too.
    static func refusedLine(_ request: RecordedRequest) -> String {
        "mock APNs refused status=\(request.status) reason=\(request.reason ?? "-")"
            + " apns-id=\(request.apnsId ?? "-") token=…\(request.deviceTokenSuffix ?? "")"
            + " topic=\(request.header("apns-topic") ?? "-")"
    }

    /// `mock APNs accepted apns-id=… token=…1a2b3c4d topic=com.example.chat push-type=alert bytes=123
    /// payload={"aps":…}`: the payload as received (JSON, which the mock checked, so one line), for a
    /// developer to see what the device would get.
    static func acceptedLine(_ request: RecordedRequest) -> String {
        "mock APNs accepted apns-id=\(request.apnsId ?? "-") token=…\(request.deviceTokenSuffix ?? "")"
            + " topic=\(request.header("apns-topic") ?? "-") push-type=\(request.header("apns-push-type") ?? "-")"
            + " bytes=\(request.body.count) payload=\(String(decoding: request.body, as: UTF8.self))"
    }
}
