import Foundation
import RelayAPNs
import RelayCLI

/// `relay-bench jwt`: prints `bearer <JWT>` (the authorization header value) for h2load and the C loop.
enum JWTCommand {
    static let usage = "relay-bench jwt [--key FILE.p8] [--key-id KID] [--team TEAM]"

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let token = try ProviderToken(
            keyPEMOrPath: arguments.value("key", default: BenchDefaults.keyFile),
            keyId: arguments.value("key-id", default: BenchDefaults.keyId),
            teamId: arguments.value("team", default: BenchDefaults.teamId)
        )
        print(try await token.authorization())
        return 0
    }
}
