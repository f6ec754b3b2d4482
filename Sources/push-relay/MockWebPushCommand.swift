import Foundation
import RelayCLI
import RelayCore
import WebPushCore
import WebPushMock

/// `push-relay mock-webpush`: a mock Web Push service on HTTP/2 until SIGINT/SIGTERM/SIGHUP, printing a line
/// per accepted push; with `--new-subscription` it makes one subscription, prints it and exits.
enum MockWebPushCommand {
    static let defaultPort = 2199
    static let defaultSubscriptions = "webpush-subscriptions"

    static let help = """
        usage: push-relay mock-webpush [options]
               push-relay mock-webpush --new-subscription [--url BASE] [--subscriptions DIR] [--vapid-key KEY]
        \(MockListenArguments.help(defaultPort: defaultPort, column: 31))
          --subscriptions DIR          where subscriptions are kept (their private keys; default
                                       \(defaultSubscriptions)); the mock opens pushes to any of them
          --new-subscription           make a subscription, keep it in DIR, print it as a browser's
                                       PushSubscription.toJSON() gives it, and exit
          --url BASE                   base URL of --new-subscription's endpoint (default this mock's,
                                       from --host, --port and --h2c)
          --vapid-key KEY              restrict --new-subscription to this VAPID public key (base64url, the
                                       page's applicationServerKey): pushes signed by another get 403
          --max-streams N              MAX_CONCURRENT_STREAMS (default 1000)
          --record FILE                append every answered push as a JSON line
          --script FILE                answers per endpoint id (see fixtures/webpush/mock-script.json)
          --quiet                      no line per accepted push
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(
            words,
            switches: MockListenArguments.switches.union(["help", "quiet", "new-subscription"]),
            options: MockListenArguments.options.union([
                "subscriptions", "url", "vapid-key", "max-streams", "record", "script",
            ]),
            positional: 0
        )
        if arguments.flag("help") {
            say(help)
            return 0
        }
        if arguments.flag("new-subscription") { return try newSubscription(arguments) }
        let configuration = try configuration(from: arguments)
        let server = MockWebPushServer(configuration: configuration)
        // Caught from before the command says it is up (``Signals``).
        let signals = Signals()
        try server.start()
        ConsoleLines.shared.say(
            "mock Web Push listening on \(server.baseURL) (subscriptions in "
                + "\(configuration.subscriptionsDirectory ?? "-"); endpoints \(server.baseURL)/push/<id>)"
        )
        try await MockLifecycle.run("mock-webpush", signals: signals) { server.stop() }
        ConsoleLines.shared.say("mock Web Push stopped after \(server.answeredCount) push(es)")
        return 0
    }

    /// `--new-subscription`: prints the subscription's JSON (one line) and returns 0.
    private static func newSubscription(_ arguments: Arguments) throws -> Int32 {
        let host = MockListenArguments.host(from: arguments)
        let port = try MockListenArguments.port(from: arguments, default: defaultPort)
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let base = arguments.value("url") ?? (arguments.flag("h2c") ? "http" : "https") + "://\(shownHost):\(port)"
        let server = MockWebPushServer(
            configuration: .init(
                subscriptionsDirectory: arguments.value("subscriptions", default: defaultSubscriptions)
            )
        )
        let subscription = try server.newSubscription(baseURL: base, applicationServerKey: arguments.value("vapid-key"))
        let encoder = JSONEncoder()
        // Sorted keys give the browser's top-level order (endpoint, expirationTime, keys) on every run.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        say(String(decoding: try encoder.encode(subscription), as: UTF8.self))
        return 0
    }

    static func configuration(from arguments: Arguments) throws -> MockWebPushConfiguration {
        var configuration = MockWebPushConfiguration(
            host: MockListenArguments.host(from: arguments),
            port: try MockListenArguments.port(from: arguments, default: defaultPort),
            tls: try MockListenArguments.tls(from: arguments),
            subscriptionsDirectory: arguments.value("subscriptions", default: defaultSubscriptions)
        )
        configuration.maxConcurrentStreams = try arguments.positiveInteger("max-streams", default: 1000)
        configuration.recordFile = arguments.value("record")
        configuration.recordInMemory = false
        if let script = arguments.value("script") {
            configuration.script = try MockWebPushScript(contentsOf: URL(fileURLWithPath: script))
        }
        if !arguments.flag("quiet") { configuration.onAccepted = { ConsoleLines.shared.say(acceptedLine($0)) } }
        return configuration
    }

    /// `mock Web Push accepted endpoint=…a1b2c3 ttl=86400 urgency=high topic=… sub=mailto:… shape=plain
    /// message={"title":…}`: the decrypted message (JSON the mock checked, so one line) for a developer to see
    /// what the browser gets; the endpoint only as the last characters of its id.
    static func acceptedLine(_ push: RecordedPush) -> String {
        "mock Web Push accepted endpoint=…\(push.endpointSuffix) ttl=\(push.ttl.map(String.init) ?? "-")"
            + " urgency=\(push.urgency ?? "-") topic=\(push.topic ?? "-") sub=\(push.vapidSubject ?? "-")"
            + " shape=\(push.shape ?? "-") message=\(push.payloadText ?? "-")"
    }
}
