import Foundation
import RelayAPNs

/// `relay-bench jwt`: prints `bearer <JWT>` (the authorization header value) for h2load and the C loop.
enum JWTCommand {
    static let usage = "relay-bench jwt [--key FILE.p8] [--key-id KID] [--team TEAM]"

    static func run(_ arguments: BenchArguments) throws -> Int32 {
        let token = try ProviderToken(
            keyPEMOrPath: arguments.string("key", default: BenchDefaults.keyFile),
            keyId: arguments.string("key-id", default: BenchDefaults.keyId),
            teamId: arguments.string("team", default: BenchDefaults.teamId)
        )
        print(try token.authorization())
        return 0
    }
}
