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
        var problems: [String]
        do { (configuration, deprecations, problems) = try ConfigurationFile.read(arguments) } catch {
            FileHandle.standardError.writeLine("\(error)")
            return 1
        }
        do { try configuration.validate() } catch { problems += error.problems }
        problems += checkedContents(configuration, after: problems)
        guard problems.isEmpty else {
            FileHandle.standardError.writeLine("\(Configuration.Invalid(problems))")
            return 1
        }
        say(configuration.redactedJSON)
        if configuration.apps.isEmpty {
            FileHandle.standardError.writeLine(
                "note: apps: none configured: serve runs the development app '\(DevelopmentSetup.appId)' in their place"
                    + " (its API key printed at start), its pushes to in-process mocks of APNs, FCM and Web Push"
            )
        }
        // Still valid (the old keys are read into their new places): the check passes.
        for notice in deprecations + configuration.warnings {
            FileHandle.standardError.writeLine("warning: \(notice)")
        }
        return 0
    }

    /// The problems of what `serve` loads before it listens, each check run on its own, past the problems
    /// `found` already: a problem of a key one of those names is left out (it would say the same again).
    /// The checks that read the files validation names run only when it found every file readable (a FIFO
    /// among them would be waited on); the PostgreSQL URL and the Kafka clients check their files first.
    private static func checkedContents(_ configuration: Configuration, after found: [String]) -> [String] {
        let filesReadable = !found.contains { $0.contains(": cannot read ") }
        let named = Set(found.map(keyPath))
        return ((filesReadable ? fileChecks : []) + alwaysChecks).flatMap { check -> [String] in
            do {
                try check(configuration)
                return []
            } catch let invalid as Configuration.Invalid {
                return invalid.problems
            } catch {
                return ["\(error)"]
            }
        }.filter { !named.contains(keyPath($0)) }
    }

    /// The key path a problem starts with (`apps[0].apns.credentials.keyFile`).
    private static func keyPath(_ problem: String) -> Substring {
        problem.prefix { $0 != ":" && $0 != " " }
    }

    /// Checks that read the key, certificate and account files the configuration names.
    private static let fileChecks: [@Sendable (Configuration) throws -> Void] = [
        { try APNsSenders.checkCredentials($0.apps) },
        { try FCMTransport.checkCredentials($0.apps) },
        { try WebPushTransport.checkCredentials($0.apps) },
        { _ = try AppUserAuthenticator.make(apps: $0.apps, logger: Logger(label: "config", level: .warning)) },
        { _ = try Relay.loadTLS($0.http) },
    ]

    /// Checks that look at a file only once it proved readable.
    private static let alwaysChecks: [@Sendable (Configuration) throws -> Void] = [
        { try PostgresConnectionString.check($0) },
        { try DittoKafkaCheck.check($0.apps) },
    ]
}
