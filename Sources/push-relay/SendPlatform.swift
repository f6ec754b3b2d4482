import RelayCLI

/// Where `push-relay send` sends (`--platform`), and which of its options belong to which platform, so an
/// option of the other one is refused by name instead of being ignored.
enum SendPlatform: String, CaseIterable {
    /// APNs, the default: `--token` is an APNs device token.
    case ios
    /// FCM HTTP v1: `--token` is an FCM registration token.
    case android

    /// The options both platforms take.
    static let sharedOptions: Set<String> = ["platform", "token", "title", "body", "endpoint", "ca", "timeout"]

    /// The options that may be given more than once.
    static let repeatableOptions: Set<String> = ["data"]

    /// Every option `send` takes, of either platform.
    static var allOptions: Set<String> { allCases.reduce(sharedOptions) { $0.union($1.ownOptions) } }

    /// The options only this platform takes.
    var ownOptions: Set<String> {
        switch self {
        case .ios:
            [
                "topic", "push-type", "payload", "priority", "expiration", "collapse-id", "apns-id", "key-file",
                "key-id", "team-id", "cert", "cert-key", "cert-password", "environment",
            ]
        case .android: ["service-account", "project-id", "data", "ttl", "tag"]
        }
    }

    /// The platform `--platform` names (default `ios`).
    /// - Throws: ``Arguments/Problem`` for another name, or naming every option given that belongs to another
    ///   platform (`--topic is for --platform ios, not android`).
    init(from arguments: Arguments) throws(Arguments.Problem) {
        let name = arguments.value("platform", default: SendPlatform.ios.rawValue)
        guard let platform = SendPlatform(rawValue: name) else {
            throw Arguments.Problem(description: "--platform '\(name)' must be ios or android")
        }
        for other in Self.allCases where other != platform {
            let stray = other.ownOptions.sorted().filter { arguments.value($0) != nil || !arguments.values($0).isEmpty }
            guard stray.isEmpty else {
                let names = stray.map { "--" + $0 }.joined(separator: ", ")
                let verb = stray.count == 1 ? "is" : "are"
                throw Arguments.Problem(
                    description: "\(names) \(verb) for --platform \(other.rawValue), not \(platform.rawValue)"
                )
            }
        }
        self = platform
    }
}
