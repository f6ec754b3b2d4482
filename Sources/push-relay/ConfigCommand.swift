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
        do {
            let (configuration, deprecations) = try ConfigurationFile.load(arguments)
            try APNsSenders.checkCredentials(configuration.apps)
            try FCMTransport.checkCredentials(configuration.apps)
            try WebPushTransport.checkCredentials(configuration.apps)
            try PostgresConnectionString.check(configuration)
            _ = try AppUserAuthenticator.make(
                apps: configuration.apps,
                logger: Logger(label: "config", level: .warning)
            )
            _ = try Relay.loadTLS(configuration.http)
            try DittoKafkaCheck.check(configuration.apps)
            say(configuration.redactedJSON)
            // Still valid (the old keys are read into their new places): the check passes.
            for notice in deprecations + configuration.warnings {
                FileHandle.standardError.writeLine("warning: \(notice)")
            }
            return 0
        } catch {
            FileHandle.standardError.writeLine("\(error)")
            return 1
        }
    }
}
