import Foundation
import RelayAPNs
import RelayAuth
import RelayCLI
import RelayCore
import RelayDittoKafka
import RelayFCM
import RelayPostgres
import RelayServer
import RelayWebPush

/// `push-relay config check [--config FILE]`: validates the layered configuration and prints it as JSON
/// with secrets redacted, and a warning on stderr per deprecated key used and per likely mistake
/// (``RelayCore/Configuration/warnings``); exit status 1 with every problem
/// listed when it is not valid.
enum ConfigCommand {
    static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, switches: ["help"], options: ["config"], positional: 1)
        let usage =
            "usage: push-relay config check [--config FILE]\n  (also reads PUSH_RELAY_CONFIG and PUSH_RELAY_* variables)"
        if arguments.flag("help") {
            say(usage)
            return 0
        }
        try arguments.requireSubcommand("check", usage: usage)
        let configuration: Configuration, deprecations: [String]
        do { (configuration, deprecations) = try ConfigurationFile.load(arguments) } catch {
            FileHandle.standardError.writeLine("\(error)")
            return 1
        }
        // Each check of what the files and URLs hold runs, so one answer lists every problem.
        let problems = checks.flatMap { check -> [String] in
            do {
                try check(configuration)
                return []
            } catch let invalid as Configuration.Invalid {
                return invalid.problems
            } catch {
                return ["\(error)"]
            }
        }
        guard problems.isEmpty else {
            FileHandle.standardError.writeLine("\(Configuration.Invalid(problems))")
            return 1
        }
        say(configuration.redactedJSON)
        // Still valid (the old keys are read into their new places): the check passes.
        for notice in deprecations + configuration.warnings {
            FileHandle.standardError.writeLine("warning: \(notice)")
        }
        return 0
    }

    /// What `serve` loads before it listens, each on its own: credentials, the PostgreSQL URL, user-token
    /// keys, TLS files and Kafka clients.
    private static let checks: [@Sendable (Configuration) throws -> Void] = [
        { try APNsSenders.checkCredentials($0.apps) },
        { try FCMTransport.checkCredentials($0.apps) },
        { try WebPushTransport.checkCredentials($0.apps) },
        { try PostgresConnectionString.check($0) },
        { _ = try AppUserAuthenticator.make(apps: $0.apps, logger: Logger(label: "config", level: .warning)) },
        { _ = try Relay.loadTLS($0.http) },
        { try DittoKafkaCheck.check($0.apps) },
    ]
}
