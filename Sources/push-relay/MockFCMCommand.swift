import FCMMock
import Foundation
import RelayCLI
import RelayCore

/// `push-relay mock-fcm`: a mock FCM HTTP v1 (and its OAuth token endpoint) on HTTP/2 until
/// SIGINT/SIGTERM/SIGHUP, printing a line per accepted message.
enum MockFCMCommand {
    static let help = """
        usage: push-relay mock-fcm [options]
        \(MockListenArguments.help(defaultPort: 2198, column: 31))
          --service-account FILE       accept assertions from this service account key file (its key signs
                                       them); several separated by commas
          --new-service-account FILE   make a service account (new RSA key, token_uri at this mock), write
                                       its key file to FILE and accept it
          --project ID                 project of --new-service-account (default push-relay-dev)
          --token-lifetime SECONDS     expires_in of the access tokens issued (default 3599)
          --max-streams N              MAX_CONCURRENT_STREAMS (default 1000)
          --record FILE                append every answered message as a JSON line
          --script FILE                answers per registration token (see fixtures/fcm/mock-script.json)
          --quiet                      no line per accepted message
        at least one of --service-account and --new-service-account is needed
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(
            words,
            switches: MockListenArguments.switches.union(["help", "quiet"]),
            options: MockListenArguments.options.union([
                "service-account", "new-service-account", "project", "token-lifetime", "max-streams", "record",
                "script",
            ]),
            positional: 0
        )
        if arguments.flag("help") {
            say(help)
            return 0
        }
        var newAccount: FCMServiceAccount?
        if arguments.value("new-service-account") != nil {
            let project = arguments.value("project", default: "push-relay-dev")
            guard FCMServiceAccount.isValidProjectId(project) else {
                throw Arguments.Problem(description: "--project '\(project)' is not a project id")
            }
            // The token_uri is known once the port is bound; the key, which the mock needs, is not tied to it.
            newAccount = try MockFCMAccount.makeServiceAccount(projectId: project, tokenURI: "http://pending")
        }
        let configuration = try configuration(from: arguments, adding: newAccount)
        let server = MockFCMServer(configuration: configuration)
        // Caught from before the command says it is up (``Signals``).
        let signals = Signals()
        try server.start()
        let base = baseURL(configuration, port: server.port)
        ConsoleLines.shared.say("mock FCM listening on \(base) (\(configuration.accounts.count) service account(s))")
        if var account = newAccount, let path = arguments.value("new-service-account") {
            account.tokenURI = base + MockFCMConfiguration.tokenPath
            do { try SecretFile.write(account.encoded(), to: path, replacing: true) } catch {
                server.stop()
                throw error
            }
            ConsoleLines.shared.say(
                "mock FCM service account written to \(path) (\(account.clientEmail), project \(account.projectId))"
            )
        }
        try await MockLifecycle.run("mock-fcm", signals: signals) { server.stop() }
        ConsoleLines.shared.say("mock FCM stopped after \(server.answeredCount) message(s)")
        return 0
    }

    static func configuration(
        from arguments: Arguments,
        adding newAccount: FCMServiceAccount?
    ) throws
        -> MockFCMConfiguration
    {
        var configuration = MockFCMConfiguration(
            host: MockListenArguments.host(from: arguments),
            port: try MockListenArguments.port(from: arguments, default: 2198),
            tls: try MockListenArguments.tls(from: arguments)
        )
        for path in (arguments.value("service-account") ?? "").split(separator: ",").map(String.init) {
            let account = try FCMServiceAccount(contentsOfFile: path)
            configuration.accounts.append(try MockFCMAccount(serviceAccount: account))
        }
        if let newAccount { configuration.accounts.append(try MockFCMAccount(serviceAccount: newAccount)) }
        guard !configuration.accounts.isEmpty else {
            throw Arguments.Problem(description: "give --service-account FILE or --new-service-account FILE")
        }
        // The token endpoint tells accounts apart by client_email, as Google's does: two with one would leave
        // one of them refused (invalid_grant) with nothing said.
        let emails = configuration.accounts.map(\.clientEmail)
        if let shared = emails.first(where: { email in emails.filter { $0 == email }.count > 1 }) {
            throw Arguments.Problem(description: "two service accounts share client_email \(shared): give each its own")
        }
        let lifetime = try arguments.positiveInteger("token-lifetime", default: 3599)
        configuration.accessTokenLifetime = .seconds(lifetime)
        configuration.maxConcurrentStreams = try arguments.positiveInteger("max-streams", default: 1000)
        configuration.recordFile = arguments.value("record")
        configuration.recordInMemory = false
        if let script = arguments.value("script") {
            configuration.script = try MockFCMScript(contentsOf: URL(fileURLWithPath: script))
        }
        if !arguments.flag("quiet") { configuration.onAccepted = { ConsoleLines.shared.say(acceptedLine($0)) } }
        return configuration
    }

    /// `http://127.0.0.1:2198` or `https://[::1]:2198`: where clients reach the mock.
    static func baseURL(_ configuration: MockFCMConfiguration, port: Int) -> String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return (configuration.tls == nil ? "http" : "https") + "://\(host):\(port)"
    }

    /// `mock FCM accepted name=projects/p/messages/0:… token=…1a2b3c4d bytes=312 message={"message":…}`: the
    /// message as received (JSON the mock checked, so one line), for a developer to see what the device gets,
    /// with the registration token in it shown as its last 8 characters: a full token never reaches a log.
    static func acceptedLine(_ message: RecordedMessage) -> String {
        let suffix = "…" + (message.tokenSuffix ?? "")
        let shown = message.token.map { message.body.replacingOccurrences(of: $0, with: suffix) } ?? message.body
        return "mock FCM accepted name=\(message.name ?? "-") token=\(suffix) bytes=\(message.body.utf8.count)"
            + " message=\(shown)"
    }
}
