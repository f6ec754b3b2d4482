import RelayCLI

/// Where `push-relay send` sends (`--platform`), and which of its options belong to which platform, so an
/// option of another one is refused by name instead of being ignored.
enum SendPlatform: String, CaseIterable {
    /// APNs, the default: `--token` is an APNs device token.
    case ios
    /// FCM HTTP v1: `--token` is an FCM registration token.
    case android
    /// Web Push: `--subscription` is a browser's push subscription.
    case web

    /// The options every platform takes.
    static let sharedOptions: Set<String> = ["platform", "title", "body", "ca", "timeout"]

    /// The options that may be given more than once.
    static let repeatableOptions: Set<String> = ["data"]

    /// The options that take no value.
    static let switches: Set<String> = ["help", "declarative"]

    /// Every option `send` takes, of any platform.
    static var allOptions: Set<String> { allCases.reduce(sharedOptions) { $0.union($1.ownOptions) } }

    /// The options (and switches) this platform takes besides the shared ones; another platform may take
    /// some of them too (`--token`, `--ttl`).
    var ownOptions: Set<String> {
        switch self {
        case .ios:
            [
                "token", "endpoint", "topic", "push-type", "payload", "priority", "expiration", "collapse-id",
                "apns-id", "key-file", "key-id", "team-id", "cert", "cert-key", "cert-password", "environment",
            ]
        case .android: ["token", "endpoint", "service-account", "project-id", "data", "ttl", "tag"]
        case .web: ["subscription", "vapid-key", "subject", "ttl", "declarative", "open-url", "room", "message-id"]
        }
    }

    /// The platform `--platform` names (default `ios`).
    /// - Throws: ``Arguments/Problem`` for another name, or naming every option given that belongs only to
    ///   other platforms (`--topic is for --platform ios, not android`).
    init(from arguments: Arguments) throws(Arguments.Problem) {
        let name = arguments.value("platform", default: SendPlatform.ios.rawValue)
        guard let platform = SendPlatform(rawValue: name) else {
            let names = Self.allCases.map(\.rawValue)
            throw Arguments.Problem(
                description:
                    "--platform '\(name)' must be \(names.dropLast().joined(separator: ", ")) or \(names.last!)"
            )
        }
        let stray = Self.allOptions.subtracting(Self.sharedOptions).subtracting(platform.ownOptions).sorted()
            .filter { arguments.value($0) != nil || !arguments.values($0).isEmpty || arguments.flag($0) }
        guard stray.isEmpty else {
            let owners = Self.allCases.filter { !$0.ownOptions.isDisjoint(with: stray) }.map(\.rawValue)
            let names = stray.map { "--" + $0 }.joined(separator: ", ")
            let verb = stray.count == 1 ? "is" : "are"
            throw Arguments.Problem(
                description:
                    "\(names) \(verb) for --platform \(owners.joined(separator: " or ")), not \(platform.rawValue)"
            )
        }
        self = platform
    }
}
