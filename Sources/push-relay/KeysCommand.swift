import Foundation
import RelayCLI
import RelayCrypto

/// `push-relay keys new`: a new API key (32 random bytes, hex) and the SHA-256 the configuration stores.
enum KeysCommand {
    static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, switches: ["help"], options: [], positional: 1)
        guard arguments.positional == ["new"], !arguments.flag("help") else {
            say("usage: push-relay keys new\n  prints a new API key and its SHA-256 for apps[].apiKeySHA256")
            return arguments.flag("help") ? 0 : 2
        }
        let key = try APIKey.generate()
        say("API key: \(key)")
        say("apiKeySHA256: \(APIKey.hash(key))")
        return 0
    }
}
